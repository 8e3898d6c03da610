import { Body, Controller, Get, Header, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CheckpointMessages, CheckpointService } from '#src/domain/ledger/checkpoint.service.js';
import {
  ConsistencyProofResponse,
  ConsistencyQuery,
  consistencyProofResponse,
  CosignatureDto,
  InclusionProofResponse,
  inclusionProofResponse,
  ProofParamMessages,
  SeqParamPipe,
  TreeSizeQuery,
} from '#src/adapters/ledger/dto/proof.dto.js';
import { LedgerProofService } from '#src/domain/ledger/ledger-proof.service.js';
import { LedgerTileService } from '#src/domain/ledger/ledger-tile.service.js';
import { ApiTile, sendTile, tilePathParam } from '#src/adapters/ledger/tile-http.js';
import { ApiCheckpointNotWitnessed, ApiConsistencyProof, ApiInclusionProofErrors } from '#src/adapters/ledger/proof-docs.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';

const TEXT = 'text/plain; charset=utf-8';
const CHECKPOINT_TEXT = {
  description: 'The signed checkpoint: a C2SP tlog-checkpoint (origin, tree size, base64 root) in a C2SP signed note (Ed25519).',
  content: { 'text/plain': { schema: { type: 'string' } } },
} as const;

/**
 * The public face of the ledger's Merkle log on the blockchain component (`BC_URL`), for anyone
 * (devices, witnesses, auditors) without a token: checkpoints, witness cosignatures, and proofs
 * made of hashes only (an entry's content needs the device token: `GET /firmware/:id/proof`).
 */
@ApiTags('Transparency log')
@ApiServerError()
@Controller()
export class TransparencyController {
  constructor(
    private readonly checkpoints: CheckpointService,
    private readonly proofs: LedgerProofService,
    private readonly tiles: LedgerTileService,
  ) {}

  /** `GET /checkpoint` → 200 text/plain: the published checkpoint; 404 while a witness quorum is not met. */
  @Get('checkpoint')
  @Header('Content-Type', TEXT)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'The published checkpoint of the ledger',
    description:
      'Signed by the log’s Ed25519 key, with every witness cosignature it carries. With LEDGER_WITNESS_QUORUM N, the newest checkpoint ' +
      'with N cosignatures of LEDGER_WITNESS_KEYS.',
  })
  @ApiOkResponse(CHECKPOINT_TEXT)
  @ApiCheckpointNotWitnessed()
  async checkpoint(): Promise<string> {
    return (await this.checkpoints.published()).note;
  }

  /** `GET /checkpoint/latest` → 200 text/plain: the checkpoint of the current tree, witnessed or not (what witnesses cosign). */
  @Get('checkpoint/latest')
  @Header('Content-Type', TEXT)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'The checkpoint of the current tree, before any witness quorum: what witnesses check and cosign' })
  @ApiOkResponse(CHECKPOINT_TEXT)
  async latest(): Promise<string> {
    return (await this.checkpoints.latest()).note;
  }

  /** `POST /checkpoint/cosignature` `{checkpoint}` → 200 text/plain: the checkpoint with the cosignatures kept. */
  @Post('checkpoint/cosignature')
  @HttpCode(200)
  @Header('Content-Type', TEXT)
  @ApiOperation({
    summary: 'Hand in a witness cosignature of a checkpoint',
    description: 'Kept when it verifies with a key of LEDGER_WITNESS_KEYS over a checkpoint this log signed.',
  })
  @ApiBody({ type: CosignatureDto })
  @ApiOkResponse(CHECKPOINT_TEXT)
  @ApiJsonBodyErrors([ProofParamMessages.checkpointRequired, ProofParamMessages.checkpoint, ProofParamMessages.checkpointLength])
  @ApiMessageResponse(400, 'Not a checkpoint note, or no valid cosignature of an accepted witness.', [
    CheckpointMessages.noCosignature,
    CheckpointMessages.notANote('a note is text, a blank line and signature lines, each ending in a newline'),
  ])
  @ApiMessageResponse(404, 'The log signed no checkpoint of that tree size.', CheckpointMessages.unknownCheckpoint(9))
  @ApiMessageResponse(409, 'The text differs from the checkpoint the log signed at that size.', CheckpointMessages.otherCheckpoint(9))
  async cosign(@Body() body: CosignatureDto): Promise<string> {
    return (await this.checkpoints.addCosignatures(body.checkpoint)).note;
  }

  /** `GET /proof/inclusion/:seq?tree_size` → the audit path of entry `seq` (hashes only). */
  @Get('proof/inclusion/:seq')
  @ApiOperation({ summary: 'Inclusion proof of a ledger entry (RFC 9162), against the published checkpoint or a tree size' })
  @ApiParam({ name: 'seq', description: 'the entry’s sequence number (1, 2, 3…)', example: '3' })
  @ApiOkResponse({ type: InclusionProofResponse, description: 'The proof.' })
  @ApiInclusionProofErrors()
  async inclusion(@Param('seq', SeqParamPipe) seq: number, @Query() query: TreeSizeQuery): Promise<InclusionProofResponse> {
    return inclusionProofResponse(await this.proofs.inclusion(seq, query.tree_size));
  }

  /** `GET /proof/consistency?from&to` → the consistency proof between two tree sizes. */
  @Get('proof/consistency')
  @ApiConsistencyProof()
  async consistency(@Query() query: ConsistencyQuery): Promise<ConsistencyProofResponse> {
    return consistencyProofResponse(await this.proofs.consistency(query.from, query.to));
  }

  /**
   * `GET /tile/<L>/<N>[.p/<W>]`, `GET /tile/entries/<N>[.p/<W>]` → 200 application/octet-stream: a
   * tile of the tree or an entry bundle (C2SP tlog-tiles); 400 malformed path, 403 entry bundle while
   * `LEDGER_PUBLIC_ENTRIES` is false, 404 beyond the tree.
   */
  @Get('tile/*')
  @ApiTile('public')
  async tile(@Param('*') path: string | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    await sendTile(reply, request, await this.tiles.tile(tilePathParam(path), 'public'), 'public');
  }
}
