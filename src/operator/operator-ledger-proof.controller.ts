import { Controller, Get, Header, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CheckpointService } from '#src/domain/ledger/checkpoint.service.js';
import {
  ConsistencyProofResponse,
  ConsistencyQuery,
  consistencyProofResponse,
  EntryProofResponse,
  entryProofResponse,
  SeqParamPipe,
  TreeSizeQuery,
} from '#src/adapters/ledger/dto/proof.dto.js';
import { LedgerProofService } from '#src/domain/ledger/ledger-proof.service.js';
import { LedgerTileService } from '#src/domain/ledger/ledger-tile.service.js';
import { ApiTile, sendTile, tilePathParam } from '#src/adapters/ledger/tile-http.js';
import { ApiCheckpointNotWitnessed, ApiConsistencyProof, ApiInclusionProofErrors } from '#src/adapters/ledger/proof-docs.js';
import { SESSION_ENDED } from '#src/domain/access/operator-session.service.js';
import { ApiOperatorAuth, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { INVALID_OPERATOR_TOKEN, OperatorTokenGuard } from './operator-token.guard.js';

const TEXT = 'text/plain; charset=utf-8';

/**
 * The ledger's Merkle log for operators under `OPERATOR_URL`: the log's public key, the
 * published checkpoint, any entry with its inclusion proof, consistency proofs, and the tiles
 * (`{operator_url}/ledger` is a C2SP tlog-tiles prefix, entry bundles included). The same rules
 * as the public routes on the blockchain component and `firmledger ledger key|checkpoint|prove|consistency`.
 */
@ApiTags('Ledger')
@ApiOperatorAuth(INVALID_OPERATOR_TOKEN, SESSION_ENDED)
@ApiServerError()
@UseGuards(OperatorTokenGuard)
@Controller('ledger')
export class OperatorLedgerProofController {
  constructor(
    private readonly checkpoints: CheckpointService,
    private readonly proofs: LedgerProofService,
    private readonly tiles: LedgerTileService,
  ) {}

  /** `GET /ledger/key` → 200 text/plain: the log's verifier key, `<origin>+<key id>+<base64 key>`. */
  @Get('key')
  @Header('Content-Type', TEXT)
  @ApiOperation({ summary: 'The log’s public key (signed-note verifier key): what anyone checks checkpoints with' })
  @ApiOkResponse({ description: 'The verifier key and a newline.', content: { 'text/plain': { schema: { type: 'string' } } } })
  key(): string {
    return `${this.checkpoints.verifierKey()}\n`;
  }

  /** `GET /ledger/checkpoint` → 200 text/plain: the published checkpoint. */
  @Get('checkpoint')
  @Header('Content-Type', TEXT)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'The published checkpoint (C2SP tlog-checkpoint in a signed note, with witness cosignatures)' })
  @ApiOkResponse({ description: 'The signed checkpoint.', content: { 'text/plain': { schema: { type: 'string' } } } })
  @ApiCheckpointNotWitnessed()
  async checkpoint(): Promise<string> {
    return (await this.checkpoints.published()).note;
  }

  /** `GET /ledger/entries/:seq/proof?tree_size` → the entry, its leaf text and inclusion proof. */
  @Get('entries/:seq/proof')
  @ApiOperation({ summary: 'A ledger entry with its inclusion proof (RFC 9162), against the published checkpoint or a tree size' })
  @ApiParam({ name: 'seq', description: 'the entry’s sequence number', example: '3' })
  @ApiOkResponse({ type: EntryProofResponse, description: 'The entry and its proof.' })
  @ApiInclusionProofErrors()
  async proof(@Param('seq', SeqParamPipe) seq: number, @Query() query: TreeSizeQuery): Promise<EntryProofResponse> {
    return entryProofResponse(await this.proofs.entryProof(seq, query.tree_size));
  }

  /** `GET /ledger/consistency?from&to` → the consistency proof between two tree sizes. */
  @Get('consistency')
  @ApiConsistencyProof()
  async consistency(@Query() query: ConsistencyQuery): Promise<ConsistencyProofResponse> {
    return consistencyProofResponse(await this.proofs.consistency(query.from, query.to));
  }

  /**
   * `GET /ledger/tile/<L>/<N>[.p/<W>]`, `GET /ledger/tile/entries/<N>[.p/<W>]` → 200
   * application/octet-stream (C2SP tlog-tiles), entry bundles included; 400 malformed path, 404 beyond the tree.
   */
  @Get('tile/*')
  @ApiTile('operator')
  async tile(@Param('*') path: string | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await sendTile(reply, request, await this.tiles.tile(tilePathParam(path), 'operator'), 'private');
  }
}
