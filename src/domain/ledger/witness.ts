import {
  cosignatureLine,
  parseCheckpoint,
  parseNote,
  parseVerifier,
  verifyNote,
  type NoteSigner,
} from '#src/platform/crypto/signed-note.js';
import { verifyConsistency } from './merkle.js';

/**
 * A witness of the ledger's log: it keeps every checkpoint it cosigned (its state) and cosigns
 * a new one only when the log proves it consistent with all of them (C2SP tlog-cosignature).
 * When the proof fails it names where the two histories part: the smallest tree size at which
 * they may differ, exact when the witness saw the sizes on both sides of it.
 */

/** What a witness keeps between runs (a JSON file). */
export interface WitnessState {
  /** The log's verifier key; only checkpoints it signed are considered. */
  log_key: string;
  /** The checkpoints it cosigned, by tree size, smallest first: base64 roots. */
  checkpoints: Array<{ size: number; root: string }>;
}

/** Where the witness reads the log: the newest checkpoint and consistency proofs. */
export interface WitnessSource {
  /** The checkpoint note to check (signed by the log). */
  checkpoint(): Promise<string>;
  /** A consistency proof from `from` to `to`; rejects when the log cannot give one. */
  consistency(from: number, to: number): Promise<Buffer[]>;
}

/** The outcome of one witness run. */
export type WitnessOutcome =
  | { ok: true; state: WitnessState; size: number; cosigned: string; previous: number | null }
  | { ok: false; state: WitnessState; firstDifferingSize: number; message: string };

/** A checkpoint not signed by the log key, or no checkpoint at all: not a history to judge. */
export class WitnessInputError extends Error {}

/**
 * Checks the log's newest checkpoint against the witnessed history and cosigns it when it holds.
 * @param state the kept state, or `null` on the first run (then `logKey` is required and the first checkpoint is trusted).
 * @param nowSeconds the cosignature's time, POSIX seconds.
 * @throws WitnessInputError when the checkpoint is not one signed by the log key.
 */
export async function witness(
  state: WitnessState | null,
  logKey: string | undefined,
  source: WitnessSource,
  signer: NoteSigner,
  nowSeconds: number,
): Promise<WitnessOutcome> {
  const key = logKey ?? state?.log_key;
  if (!key) throw new WitnessInputError('the log key is needed on the first run (--log-key, as firmledger ledger key prints it)');
  if (state && logKey && logKey !== state.log_key)
    throw new WitnessInputError(`the state file witnesses another log key (${state.log_key})`);
  const verifier = parseVerifier(key);
  let note;
  let checkpoint;
  try {
    note = parseNote(await source.checkpoint());
    checkpoint = parseCheckpoint(note.text);
  } catch (error) {
    throw new WitnessInputError(`not a checkpoint: ${(error as Error).message}`);
  }
  if (!verifyNote(note, verifier) || checkpoint.origin !== verifier.name) {
    throw new WitnessInputError(`the checkpoint is not signed by the log key ${verifier.text}`);
  }
  const history = state?.checkpoints ?? [];
  // The witnessed checkpoints were consistent with each other, so the ones consistent with the new
  // checkpoint are a prefix of them: check the newest, and on failure search for where it ends.
  const holds = (i: number): Promise<boolean> =>
    history[i].size <= checkpoint.size ? consistentWith(history[i], checkpoint.size, checkpoint.root, source) : Promise.resolve(false);
  if (history.length && !(await holds(history.length - 1))) {
    let [low, high] = [-1, history.length - 1]; // history[low] holds (or none), history[high] does not
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await holds(middle)) low = middle;
      else high = middle;
    }
    const agreed = low >= 0 ? history[low].size : 0;
    const seen = history[high];
    const first = Math.min(seen.size, checkpoint.size + 1);
    const where = first === agreed + 1 ? `tree size ${first}` : `a tree size from ${agreed + 1} to ${first}`;
    const shrunk = seen.size > checkpoint.size ? ` (the log now has ${checkpoint.size} entries; it had at least ${seen.size})` : '';
    return {
      ok: false,
      state: { log_key: key, checkpoints: history },
      firstDifferingSize: first,
      message: `the log's history differs from the witnessed one at ${where}${shrunk}; they agree up to tree size ${agreed}`,
    };
  }
  const root = checkpoint.root.toString('base64');
  const checkpoints = history.some((c) => c.size === checkpoint.size) ? history : [...history, { size: checkpoint.size, root }];
  const cosigned = `${note.text}\n${[...note.signatures.map((s) => s.line), cosignatureLine(note.text, signer, nowSeconds)].join('\n')}\n`;
  return {
    ok: true,
    state: { log_key: key, checkpoints },
    size: checkpoint.size,
    cosigned,
    previous: history.length ? history[history.length - 1].size : null,
  };
}

async function consistentWith(seen: { size: number; root: string }, size: number, root: Buffer, source: WitnessSource): Promise<boolean> {
  const seenRoot = Buffer.from(seen.root, 'base64');
  if (seen.size === size) return seenRoot.equals(root);
  let proof;
  try {
    proof = await source.consistency(seen.size, size);
  } catch {
    return false;
  }
  return verifyConsistency(seen.size, size, proof, seenRoot, root);
}
