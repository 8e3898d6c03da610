import { createHash } from 'node:crypto';
import { parseCheckpoint, parseNote, parseVerifier, verifyNote, type Checkpoint } from '#src/platform/crypto/signed-note.js';
import { GENESIS_HASH } from './ledger-hash.js';
import { CompactTree, leafHash } from './merkle.js';
import { decodeEntryBundle, TILE_WIDTH, tilePath } from './tiles.js';

/**
 * A monitor of a firmledger log (or any C2SP tlog-tiles log of ledger entries): it follows the
 * log through its checkpoint, hash tiles and entry bundles only, and checks every new entry (its
 * text hashes to its leaf in the tiles, it links to the entry before it, its sequence number is
 * its place) and every new checkpoint (signed by the log, and its root is the tree the monitor
 * holds extended by the new entries). It keeps what it saw between runs: the tree size and root,
 * the tree's right edge, the newest entry's hash, and every leaf hash (to name a rewritten entry).
 */

/** What the monitor keeps between runs (a JSON file; the leaf hashes go to a binary file beside it). */
export interface MonitorState {
  /** The log's verifier key. */
  log_key: string;
  /** The tree size and base64 root of the newest checkpoint it verified. */
  size: number;
  root: string;
  /** The right edge of that tree: `level`, `index`, base64 `hash` (see `CompactTree`). */
  edge: Array<{ level: number; index: number; hash: string }>;
  /** Hex SHA-256 of the newest entry (64 zeros for an empty log), or `null` when the entries were not readable. */
  head: string | null;
}

/** Where the monitor reads the log: the C2SP tlog-tiles paths under one prefix. */
export interface TileSource {
  /** `GET <prefix>/checkpoint`. */
  checkpoint(): Promise<string>;
  /**
   * `GET <prefix>/tile/<path>`; `null` when the log refuses it (403: entry bundles that are not public).
   * Rejects on any other failure.
   */
  tile(path: string): Promise<Buffer | null>;
}

/** The kinds of misbehaviour a monitor alerts on (the `kind` label of its metric). */
export const ALERT_KINDS = ['split_view', 'rewritten_entry', 'non_extending_checkpoint', 'bad_checkpoint'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** The outcome of one monitor run. */
export type MonitorOutcome =
  | {
      ok: true;
      state: MonitorState;
      /** Leaf hashes of the new entries, in order (to append to the kept ones). */
      newLeaves: Buffer[];
      previousSize: number;
      /** Whether the entries' chain was checked (entry bundles readable). */
      chainChecked: boolean;
    }
  | { ok: false; kind: AlertKind; message: string; size: number };

/**
 * Reads the log's newest checkpoint and the entries added since `state`, and checks them.
 * @param state what the monitor kept, `null` on its first run (then everything from entry 1 is read).
 * @param logKey the log's verifier key (needed on the first run).
 * @param seenLeaf the leaf hash the monitor kept for a leaf index below `state.size` (to name a rewritten entry).
 */
export async function monitorLog(
  state: MonitorState | null,
  logKey: string,
  source: TileSource,
  seenLeaf: (index: number) => Buffer | null,
): Promise<MonitorOutcome> {
  const log = parseVerifier(logKey);
  const alert = (kind: AlertKind, message: string, size: number): MonitorOutcome => ({ ok: false, kind, message, size });
  let checkpoint: Checkpoint;
  try {
    const note = parseNote(await source.checkpoint());
    checkpoint = parseCheckpoint(note.text);
    if (!verifyNote(note, log) || checkpoint.origin !== log.name) throw new Error(`not signed by ${log.text}`);
  } catch (error) {
    return alert('bad_checkpoint', `the log's checkpoint does not verify: ${(error as Error).message}`, state?.size ?? 0);
  }
  const size = checkpoint.size;
  const seen = state ?? { log_key: log.text, size: 0, root: '', edge: [], head: GENESIS_HASH };
  if (state && size < state.size) {
    return alert(
      'non_extending_checkpoint',
      `the log's checkpoint of tree size ${size} does not extend the one of tree size ${state.size} seen before: entries ${size + 1} to ${state.size} are gone`,
      size,
    );
  }
  if (state && size === state.size && checkpoint.root.toString('base64') !== state.root) {
    const rewritten = await firstRewritten(source, state.size, seenLeaf);
    return alert(
      'split_view',
      `the log signed two different trees of size ${size}: root ${state.root} seen before, ${checkpoint.root.toString('base64')} now` +
        (rewritten === null ? '' : `; entry ${rewritten + 1} was rewritten`),
      size,
    );
  }

  const tree = state
    ? CompactTree.fromEdge(
        state.size,
        state.edge.map((n) => ({ ...n, hash: Buffer.from(n.hash, 'base64') })),
      )
    : new CompactTree();
  const newLeaves: Buffer[] = [];
  let head = seen.head;
  let chainChecked = true;
  for (let tileIndex = Math.floor(seen.size / TILE_WIDTH); tileIndex * TILE_WIDTH < size; tileIndex++) {
    const first = tileIndex * TILE_WIDTH;
    const width = Math.min(TILE_WIDTH, size - first);
    const hashes = await source.tile(tilePath({ level: 0, index: tileIndex, width }));
    if (!hashes || hashes.length !== width * 32) {
      return alert('bad_checkpoint', `tile/${tilePath({ level: 0, index: tileIndex, width })} is missing or not ${width} hashes`, size);
    }
    const bundle = chainChecked ? await source.tile(tilePath({ level: 'entries', index: tileIndex, width })) : null;
    if (!bundle) chainChecked = false;
    const texts = bundle ? decodeEntryBundle(bundle, width) : [];
    // The entries of this tile seen before: their leaves and texts must be the ones kept.
    for (let i = 0; i < Math.min(width, seen.size - first); i++) {
      const kept = seenLeaf(first + i);
      const leaf = hashes.subarray(i * 32, (i + 1) * 32);
      if (kept && !kept.equals(leaf)) return notExtending(size, seen.size, await firstRewritten(source, seen.size, seenLeaf));
      if (bundle && !leafHash(texts[i]).equals(leaf)) {
        return alert('rewritten_entry', `entry ${first + i + 1}, seen before, was rewritten: its text no longer hashes to its leaf`, size);
      }
    }
    for (let i = Math.max(0, seen.size - first); i < width; i++) {
      const index = first + i;
      const leaf = hashes.subarray(i * 32, (i + 1) * 32);
      if (bundle) {
        const text = texts[i];
        if (!leafHash(text).equals(leaf)) {
          const where = `tile/${tilePath({ level: 0, index: tileIndex, width })}`;
          return alert(
            'rewritten_entry',
            `entry ${index + 1} does not hash to its leaf in ${where}: it was rewritten after it was logged`,
            size,
          );
        }
        const broken = linkBreak(text.toString('utf8'), index + 1, head);
        if (broken) return alert('rewritten_entry', `entry ${index + 1} ${broken}`, size);
        head = createHash('sha256').update(text).digest('hex');
      }
      tree.push(Buffer.from(leaf));
      newLeaves.push(Buffer.from(leaf));
    }
  }
  if (!tree.root().equals(checkpoint.root)) {
    return notExtending(size, seen.size, state ? await firstRewritten(source, state.size, seenLeaf) : null);
  }
  return {
    ok: true,
    previousSize: seen.size,
    newLeaves,
    chainChecked,
    state: {
      log_key: log.text,
      size,
      root: checkpoint.root.toString('base64'),
      edge: tree.edgeNodes().map((n) => ({ level: n.level, index: n.index, hash: n.hash.toString('base64') })),
      head: chainChecked ? head : null,
    },
  };
}

/** The alert of a checkpoint whose tree is not the one seen, extended; `rewritten`: the first leaf index found changed. */
function notExtending(size: number, seenSize: number, rewritten: number | null): MonitorOutcome {
  return {
    ok: false,
    kind: 'non_extending_checkpoint',
    message:
      `the log's checkpoint of tree size ${size} does not extend the tree of size ${seenSize} seen before` +
      (rewritten === null ? ' (its new entries do not hash to its root)' : `: entry ${rewritten + 1} was rewritten`),
    size,
  };
}

/**
 * Why entry `seq`'s text (its leaf text: the previous entry's hash, a newline, canonical JSON) does
 * not follow the entry before it; `null` when it does (or when that hash is unknown).
 */
function linkBreak(text: string, seq: number, previous: string | null): string | null {
  const newline = text.indexOf('\n');
  let fields: { seq?: unknown };
  try {
    fields = JSON.parse(text.slice(newline + 1)) as { seq?: unknown };
  } catch {
    return 'is not a ledger entry (previous hash, newline, canonical JSON)';
  }
  if (newline !== 64 || fields.seq !== seq) return `is not ledger entry ${seq} (its text names sequence number ${String(fields.seq)})`;
  if (previous !== null && text.slice(0, 64) !== previous)
    return `does not link to entry ${seq - 1}: its previous hash is not that entry's hash`;
  return null;
}

/** The first leaf index below `size` whose hash in the log's tiles is not the one the monitor kept; `null` when none differs. */
async function firstRewritten(source: TileSource, size: number, seenLeaf: (index: number) => Buffer | null): Promise<number | null> {
  for (let tileIndex = 0; tileIndex * TILE_WIDTH < size; tileIndex++) {
    const first = tileIndex * TILE_WIDTH;
    const width = Math.min(TILE_WIDTH, size - first);
    const hashes = await source.tile(tilePath({ level: 0, index: tileIndex, width })).catch(() => null);
    if (!hashes) return null;
    for (let i = 0; i < width; i++) {
      const kept = seenLeaf(first + i);
      if (kept && !kept.equals(hashes.subarray(i * 32, (i + 1) * 32))) return first + i;
    }
  }
  return null;
}
