import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { gzipSync } from 'node:zlib';
import { ApiMessageResponse } from '#src/platform/openapi/api-responses.js';
import type { TileAnswer } from '#src/domain/ledger/ledger-tile.service.js';
import { TileMessages } from '#src/domain/ledger/ledger-tile.service.js';
import { TILE_WIDTH } from '#src/domain/ledger/tiles.js';

/*
 * The HTTP face of the tiles (C2SP tlog-tiles), written once for the public log on the blockchain
 * component and the operators' copy: headers, compression and the OpenAPI text. The rules are
 * `LedgerTileService`'s.
 */

/** A full tile never changes: a year, immutable. */
const FULL_TILE_SECONDS = 31_536_000;
/** A partial tile is replaced by a wider one as the tree grows: a minute. */
const PARTIAL_TILE_SECONDS = 60;

/**
 * Sends a tile: `application/octet-stream`, `Cache-Control` long and immutable for a full tile and
 * a minute for a partial one (`public` on the public log, `private` for operators), an entry bundle
 * gzip-compressed when the client accepts it (C2SP tlog-tiles: SHOULD).
 */
export async function sendTile(
  reply: FastifyReply,
  request: FastifyRequest,
  answer: TileAnswer,
  audience: 'public' | 'private',
): Promise<void> {
  const full = answer.tile.width === TILE_WIDTH;
  const cache = full ? `${audience}, max-age=${FULL_TILE_SECONDS}, immutable` : `${audience}, max-age=${PARTIAL_TILE_SECONDS}`;
  let body = answer.body;
  reply.header('Content-Type', 'application/octet-stream').header('Cache-Control', cache);
  if (answer.tile.level === 'entries') {
    reply.header('Vary', 'Accept-Encoding');
    if (acceptsGzip(request.headers['accept-encoding'])) {
      body = gzipSync(body);
      reply.header('Content-Encoding', 'gzip');
    }
  }
  await reply.status(200).send(body);
}

/** Whether an `Accept-Encoding` header takes gzip (not `gzip;q=0`). */
function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') return false;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return q === undefined || Number(q) > 0;
  });
}

const PATH_PARAM = {
  name: 'path',
  description:
    'C2SP tlog-tiles: `<L>/<N>[.p/<W>]` for a hash tile (level L 0–63; index N in groups of three digits, every group but the last ' +
    'prefixed with x, e.g. `0/x001/234`; a partial tile of W hashes, 1–255, ends `.p/<W>`), or `entries/<N>[.p/<W>]` for an entry bundle.',
  example: '0/000.p/9',
};

/**
 * The OpenAPI text of `GET …/tile/{path}`.
 * @param reader `public` (the blockchain component: entry bundles only with `LEDGER_PUBLIC_ENTRIES`) or `operator`.
 */
export function ApiTile(reader: 'public' | 'operator'): MethodDecorator {
  const entries =
    reader === 'public'
      ? 'Entry bundles are served here only with LEDGER_PUBLIC_ENTRIES=true (they name tenants, devices and operators); hash tiles always.'
      : 'The same tiles as the public log on the blockchain component, entry bundles included.';
  return applyDecorators(
    ApiOperation({
      summary: 'A tile of the ledger’s Merkle tree, or an entry bundle (C2SP tlog-tiles)',
      description:
        'A hash tile holds up to 256 hashes of 32 bytes: at level L, hash i of tile N is the root of the 256^L entries from ' +
        '(N·256 + i)·256^L (level 0: the leaf hashes). An entry bundle holds entries N·256 … N·256 + 255, each a big-endian uint16 ' +
        'length and the entry’s leaf text (the previous entry hash, a newline, the canonical JSON of the entry). With the checkpoint ' +
        `they let anyone compute every inclusion and consistency proof. ${entries}`,
    }),
    ApiParam(PATH_PARAM),
    ApiResponse({
      status: 200,
      description: 'The tile: 32 × W bytes of hashes, or W length-prefixed entries (gzip when accepted).',
      content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      headers: {
        'Cache-Control': {
          description: 'A full tile never changes (a year, immutable); a partial one a minute.',
          schema: { type: 'string', example: `public, max-age=${FULL_TILE_SECONDS}, immutable` },
        },
      },
    }),
    ApiMessageResponse(400, 'A malformed tile path.', TileMessages.badPath('not a tile path: "0/1"')),
    ...(reader === 'public'
      ? [ApiMessageResponse(403, 'An entry bundle, while the entries are served to operators only.', TileMessages.entriesPrivate)]
      : []),
    ApiMessageResponse(404, 'The tile is beyond the ledger’s tree.', TileMessages.beyondTree),
    ApiMessageResponse(409, 'An entry bundle would hold an entry over 65,535 bytes.', TileMessages.entryTooLarge(9, 70000)),
  );
}

/** The `*path` route parameter as one text (the router may hand a wildcard over as its segments). */
export function tilePathParam(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join('/') : (value ?? '');
}
