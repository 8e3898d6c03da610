import { BadRequestException, ConflictException, ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { ledgerLeafText } from './ledger-hash.js';
import { LedgerRepository } from './ledger.repository.js';
import { LedgerTreeRepository } from './ledger-tree.repository.js';
import { encodeEntryBundle, MAX_ENTRY_BYTES, parseTilePath, TILE_WIDTH, tileNodes, TilePathError, type TileRef } from './tiles.js';

/** Texts of the tile errors. */
export const TileMessages = {
  badPath: (reason: string) => `Bad tile path: ${reason}`,
  beyondTree: 'No such tile: it is beyond the ledger’s tree',
  entriesPrivate: 'The ledger’s entry bundles are served to operators only here (LEDGER_PUBLIC_ENTRIES); the hash tiles are public',
  entryTooLarge: (seq: number, bytes: number) =>
    `Ledger entry ${seq} is ${bytes} bytes, more than an entry bundle holds (${MAX_ENTRY_BYTES}); the hash tiles still prove it`,
} as const;

/** A tile as served. */
export interface TileAnswer {
  tile: TileRef;
  /** The hashes concatenated (32 bytes each), or the entry bundle. */
  body: Buffer;
}

/**
 * The ledger's tree as C2SP tlog-tiles (c2sp.org/tlog-tiles, see `tiles.ts`): hash tiles and entry
 * bundles, read from what the server stores (every perfect subtree of the tree, and the entries),
 * each with one range query. A tile exists once every hash (entry) it holds does, so every
 * instance answers alike and a tile's bytes never change; one beyond the tree is not found.
 */
@Injectable()
export class LedgerTileService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tree: LedgerTreeRepository,
    private readonly entries: LedgerRepository,
  ) {}

  /**
   * The tile at `path` (what follows `tile/`): `<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]`.
   * @param reader `public` (anyone: entry bundles only with `LEDGER_PUBLIC_ENTRIES`) or `operator`.
   * @throws BadRequestException for a malformed path; NotFoundException for a tile beyond the tree;
   *   ForbiddenException for an entry bundle asked for by the public while the entries are not public;
   *   ConflictException for an entry bundle holding an entry over 65,535 bytes (none is appended since
   *   the limit exists, docs/transparency.md).
   */
  async tile(path: string, reader: 'public' | 'operator'): Promise<TileAnswer> {
    let tile: TileRef | null;
    try {
      tile = parseTilePath(path);
    } catch (error) {
      if (error instanceof TilePathError) throw new BadRequestException(TileMessages.badPath(error.message));
      throw error;
    }
    if (tile?.level === 'entries' && reader === 'public' && !this.config.ledgerPublicEntries) {
      throw new ForbiddenException(TileMessages.entriesPrivate);
    }
    if (!tile) throw new NotFoundException(TileMessages.beyondTree);
    const level = tile.level;
    return { tile, body: level === 'entries' ? await this.entryBundle(tile) : await this.hashTile({ ...tile, level }) };
  }

  private async hashTile(tile: TileRef & { level: number }): Promise<Buffer> {
    const { level, from, to } = tileNodes(tile);
    if (level > 31) throw new NotFoundException(TileMessages.beyondTree);
    const rows = await this.tree.nodeRange(level, from, to);
    if (rows.length !== tile.width) throw new NotFoundException(TileMessages.beyondTree);
    return Buffer.concat(rows.map((row) => Buffer.from(row.hash, 'hex')));
  }

  private async entryBundle(tile: TileRef): Promise<Buffer> {
    const first = tile.index * TILE_WIDTH + 1;
    const rows = await this.entries.range(first, first + tile.width - 1);
    if (rows.length !== tile.width) throw new NotFoundException(TileMessages.beyondTree);
    const texts = rows.map((entry) => Buffer.from(ledgerLeafText(entry.prevHash, entry), 'utf8'));
    const large = texts.findIndex((text) => text.length > MAX_ENTRY_BYTES);
    if (large >= 0) throw new ConflictException(TileMessages.entryTooLarge(rows[large].seq, texts[large].length));
    return encodeEntryBundle(texts);
  }
}
