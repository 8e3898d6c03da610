/**
 * C2SP tlog-tiles (c2sp.org/tlog-tiles): the ledger's Merkle tree served as static tiles. A hash
 * tile at level L, index N holds up to 256 hashes: hash i is the root of the perfect subtree of
 * 256^L leaves starting at leaf (N·256 + i)·256^L, which is the stored node (8·L, N·256 + i). An
 * entry bundle N holds the leaf data of leaves N·256 … N·256 + 255, each a big-endian uint16
 * length and that many bytes. A full tile has 256 hashes (entries); a partial one, `.p/<W>`,
 * the first W of them (1 ≤ W ≤ 255). Pure functions: paths, widths and the bundle encoding.
 */

/** Hashes (or entries) in a full tile: 2^8 (tile height 8). */
export const TILE_WIDTH = 256;

/** Tile height: a level-L tile hash is the root of 2^(8·L) leaves. */
export const TILE_HEIGHT = 8;

/** Largest entry an entry bundle can hold: its length is a uint16, bytes. */
export const MAX_ENTRY_BYTES = 65_535;

/** A tile named by a path: a hash tile (`level` 0…63) or an entry bundle (`level` `'entries'`). */
export interface TileRef {
  level: number | 'entries';
  /** The tile index N. */
  index: number;
  /** Hashes (entries) it holds: 256 for a full tile, 1…255 for a partial one. */
  width: number;
}

/** A malformed tile path (the answer is 400). */
export class TilePathError extends Error {}

/**
 * Largest tile index served: entries and tree nodes are numbered by 32-bit integers, so no tile
 * beyond this can hold a hash (and no number past 2^31 − 1 is ever sent to the database).
 */
const MAX_TILE_INDEX = 2 ** 31 / TILE_WIDTH - 2;

/**
 * Reads the part of a tile path after `tile/`: `<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]`.
 * `<L>` is 0…63 without leading zeroes; `<N>` is written in groups of three digits, every group
 * but the last prefixed with `x` and no leading `x000/` (1234067 → `x001/x234/067`); `<W>` is
 * 1…255 without leading zeroes (a full tile has no `.p/` suffix).
 * @returns the tile, or `null` for a well-formed path whose index no tree of this log reaches (404).
 * @throws TilePathError for anything else.
 */
export function parseTilePath(path: string): TileRef | null {
  const match = /^(entries|0|[1-9]\d?)\/((?:x\d{3}\/)*\d{3})(?:\.p\/([1-9]\d{0,2}))?$/.exec(path);
  if (!match) throw new TilePathError(`not a tile path: ${describe(path)}`);
  const [, levelText, indexText, widthText] = match;
  const level = levelText === 'entries' ? 'entries' : Number(levelText);
  if (level !== 'entries' && level > 63) throw new TilePathError(`tile level ${level} is above 63`);
  const groups = indexText.split('/').map((group) => group.replace(/^x/, ''));
  if (groups.length > 1 && groups[0] === '000') throw new TilePathError(`tile index ${indexText} has a leading x000 group`);
  const width = widthText === undefined ? TILE_WIDTH : Number(widthText);
  if (widthText !== undefined && width >= TILE_WIDTH) throw new TilePathError(`a partial tile holds 1 to 255 hashes, not ${width}`);
  if (groups.length > 4) return null;
  const index = groups.reduce((n, group) => n * 1000 + Number(group), 0);
  return index > MAX_TILE_INDEX ? null : { level, index, width };
}

/** The path of a tile, after `tile/`: the inverse of {@link parseTilePath}. */
export function tilePath(tile: TileRef): string {
  let n = tile.index;
  let index = String(n % 1000).padStart(3, '0');
  while (n >= 1000) {
    n = Math.floor(n / 1000);
    index = `x${String(n % 1000).padStart(3, '0')}/${index}`;
  }
  return `${tile.level}/${index}${tile.width < TILE_WIDTH ? `.p/${tile.width}` : ''}`;
}

/**
 * The stored tree nodes a hash tile consists of: level 8·L, indexes N·256 … N·256 + W − 1
 * (`ledger_tree_node`, see {@link LedgerTreeNode}).
 */
export function tileNodes(tile: TileRef & { level: number }): { level: number; from: number; to: number } {
  const from = tile.index * TILE_WIDTH;
  return { level: TILE_HEIGHT * tile.level, from, to: from + tile.width - 1 };
}

/**
 * The tiles a tree of `size` leaves consists of, level by level: the full ones, then the partial
 * one of each level (C2SP tlog-tiles: a level holds ⌊size / 256^L⌋ hashes). Entry bundles mirror
 * level 0.
 */
export function tilesOf(size: number): TileRef[] {
  const tiles: TileRef[] = [];
  for (let level = 0, hashes = size; hashes > 0; level++, hashes = Math.floor(hashes / TILE_WIDTH)) {
    const full = Math.floor(hashes / TILE_WIDTH);
    for (let index = 0; index < full; index++) tiles.push({ level, index, width: TILE_WIDTH });
    if (hashes % TILE_WIDTH) tiles.push({ level, index: full, width: hashes % TILE_WIDTH });
  }
  return tiles;
}

/**
 * An entry bundle: each entry's length as a big-endian uint16, then its bytes.
 * @throws RangeError for an entry over {@link MAX_ENTRY_BYTES}.
 */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    if (entry.length > MAX_ENTRY_BYTES) throw new RangeError(`an entry of ${entry.length} bytes does not fit an entry bundle`);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(entry.length);
    parts.push(length, Buffer.from(entry.buffer, entry.byteOffset, entry.length));
  }
  return Buffer.concat(parts);
}

/**
 * Reads an entry bundle of `width` entries.
 * @throws RangeError when the bytes are not exactly that many length-prefixed entries.
 */
export function decodeEntryBundle(bundle: Uint8Array, width: number): Buffer[] {
  const bytes = Buffer.from(bundle.buffer, bundle.byteOffset, bundle.length);
  const entries: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new RangeError(`entry bundle: a length cut off at byte ${at}`);
    const length = bytes.readUInt16BE(at);
    if (at + 2 + length > bytes.length) throw new RangeError(`entry bundle: entry ${entries.length} runs past the end`);
    entries.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  if (entries.length !== width) throw new RangeError(`entry bundle holds ${entries.length} entries, not ${width}`);
  return entries;
}

/** A path for an error message: at most 80 characters, control characters shown as `?`. */
function describe(path: string): string {
  const printable = path.replace(/[\u0000-\u001f\u007f]/g, '?');
  return `"${printable.length > 80 ? `${printable.slice(0, 80)}…` : printable}"`;
}
