import {
  cosignatureLine,
  isSignatureOf,
  parseCheckpoint,
  parseNote,
  parseVerifier,
  verifyNote,
  type NoteSigner,
} from '#src/platform/crypto/signed-note.js';
import { EMPTY_ROOT, verifyConsistency } from './merkle.js';

/**
 * A witness of the ledger's log: it keeps every checkpoint it cosigned (its state) and cosigns
 * a new one only when the log proves it consistent with all of them (C2SP tlog-cosignature). It
 * reads the log itself ({@link witness}), or answers the log's requests (C2SP tlog-witness,
 * {@link addCheckpoint}); both keep one state, so one witness may do either.
 * When the proof fails it names where the two histories part: the smallest tree size at which
 * they may differ, exact when the witness saw the sizes on both sides of it.
 */

/** What a witness keeps between runs (a JSON file). */
export interface WitnessState {
  /** The log's verifier key; only checkpoints it signed are considered. */
  log_key: string;
  /** The checkpoints it cosigned, by tree size, smallest first: base64 roots. */
  checkpoints: Array<{ size: number; root: string }>;
  /**
   * The newest checkpoint it cosigned through C2SP tlog-witness, with the log's signature and its
   * cosignature (what its monitoring endpoint serves); absent until then.
   */
  cosigned?: string;
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
      state: { ...state, log_key: key, checkpoints: history },
      firstDifferingSize: first,
      message: `the log's history differs from the witnessed one at ${where}${shrunk}; they agree up to tree size ${agreed}`,
    };
  }
  const root = checkpoint.root.toString('base64');
  const checkpoints = history.some((c) => c.size === checkpoint.size) ? history : [...history, { size: checkpoint.size, root }];
  const cosigned = `${note.text}\n${[...note.signatures.map((s) => s.line), cosignatureLine(note.text, signer, nowSeconds)].join('\n')}\n`;
  return {
    ok: true,
    state: { log_key: key, checkpoints, cosigned },
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

/** Largest `add-checkpoint` body read, bytes: 63 proof lines and a checkpoint with many cosignatures fit easily. */
export const ADD_CHECKPOINT_MAX_BYTES = 64 * 1024;

/** Most consistency proof lines an `add-checkpoint` request may carry (C2SP tlog-witness). */
const MAX_PROOF_LINES = 63;

/** Content type of a 409 answer: the witness's tree size (C2SP tlog-witness). */
export const TLOG_SIZE_TYPE = 'text/x.tlog.size';

/** An answer of `POST <prefix>/add-checkpoint`. */
export interface AddCheckpointAnswer {
  /** 200 cosigned; 400 malformed; 403 not signed by the log; 404 unknown origin; 409 `old` is not the size the witness knows; 422 inconsistent. */
  status: 200 | 400 | 403 | 404 | 409 | 422;
  /** `text/plain; charset=utf-8`, or {@link TLOG_SIZE_TYPE} for 409. */
  contentType: string;
  /** 200: the cosignature line(s); 409: the known size and a newline; otherwise what was wrong. */
  body: string;
  /** On 200: the state to keep before answering (the cosigned checkpoint added). */
  state?: WitnessState;
}

/**
 * The witness side of C2SP tlog-witness (`POST <prefix>/add-checkpoint`) over one log: the body is
 * `old <size>\n`, up to 63 base64 consistency proof lines, an empty line, and the checkpoint note.
 * Checks, in this order (so nothing about the state is told to a request the log did not sign):
 * the body's form (400), the checkpoint's origin is the log's (404), every signature line naming the
 * log key verifies and one does (403), `old` is not above the checkpoint's size (400), `old` is the
 * size this witness last cosigned, 0 when none (409, with that size), and the proof shows the new
 * tree to extend the cosigned one (422; also a size-0 checkpoint whose root is not the empty root,
 * a proof sent with `old 0`, and the same size with another root). Then it cosigns (cosignature/v1,
 * Ed25519, with the time) and answers the new state, which the caller stores before it answers:
 * the caller runs this and the store as one compare-and-swap.
 * @param state what the witness keeps, `null` before its first cosignature (then any first checkpoint is trusted).
 * @param logKey the log's verifier key (its name is the origin).
 * @param nowSeconds the cosignature's time, POSIX seconds (never 0).
 */
export function addCheckpoint(
  body: string,
  state: WitnessState | null,
  logKey: string,
  signer: NoteSigner,
  nowSeconds: number,
): AddCheckpointAnswer {
  const text = (status: AddCheckpointAnswer['status'], message: string): AddCheckpointAnswer => ({
    status,
    contentType: 'text/plain; charset=utf-8',
    body: `${message}\n`,
  });
  const split = body.indexOf('\n\n');
  if (split < 0) return text(400, 'the body is "old <size>", the proof lines, an empty line and the checkpoint');
  const [oldLine, ...proofLines] = body.slice(0, split).split('\n');
  const old = /^old (0|[1-9]\d{0,15})$/.exec(oldLine)?.[1];
  if (old === undefined) return text(400, 'the first line must be "old <size>" (decimal, no leading zeroes)');
  if (proofLines.length > MAX_PROOF_LINES) return text(400, `at most ${MAX_PROOF_LINES} consistency proof lines`);
  const proof = proofLines.map((line) => Buffer.from(line, 'base64'));
  if (proof.some((hash, i) => hash.length !== 32 || hash.toString('base64') !== proofLines[i])) {
    return text(400, 'each proof line must be one base64 SHA-256 hash');
  }
  let note;
  let checkpoint;
  try {
    note = parseNote(body.slice(split + 2));
    checkpoint = parseCheckpoint(note.text);
  } catch (error) {
    return text(400, `not a checkpoint: ${(error as Error).message}`);
  }
  const log = parseVerifier(logKey);
  if (checkpoint.origin !== log.name) return text(404, `this witness does not witness the log "${checkpoint.origin}"`);
  const ofLog = note.signatures.filter((s) => isSignatureOf(s, log));
  if (ofLog.length === 0 || !ofLog.every((s) => verifyNote({ text: note.text, signatures: [s] }, log))) {
    return text(403, `the checkpoint does not carry a valid signature of ${log.name}`);
  }
  const oldSize = Number(old);
  if (oldSize > checkpoint.size) return text(400, `old ${oldSize} is larger than the checkpoint's tree size ${checkpoint.size}`);
  const history = state?.checkpoints ?? [];
  const latest = history.at(-1);
  const known = latest?.size ?? 0;
  if (oldSize !== known) return { status: 409, contentType: TLOG_SIZE_TYPE, body: `${known}\n` };
  if (checkpoint.size === 0 && !checkpoint.root.equals(EMPTY_ROOT)) return text(422, 'a checkpoint of size 0 must carry the empty root');
  if (oldSize === 0 && proof.length > 0) return text(422, 'no consistency proof is sent from size 0');
  if (latest && oldSize === checkpoint.size && !checkpoint.root.equals(Buffer.from(latest.root, 'base64'))) {
    return text(422, `the checkpoint's root differs from the one cosigned at tree size ${oldSize}: the log forked`);
  }
  if (latest && oldSize > 0 && oldSize < checkpoint.size) {
    if (!verifyConsistency(oldSize, checkpoint.size, proof, Buffer.from(latest.root, 'base64'), checkpoint.root)) {
      return text(422, `the consistency proof from tree size ${oldSize} does not hold: the checkpoint does not extend the cosigned one`);
    }
  }
  const line = cosignatureLine(note.text, signer, Math.max(1, nowSeconds));
  const root = checkpoint.root.toString('base64');
  const checkpoints = latest?.size === checkpoint.size ? history : [...history, { size: checkpoint.size, root }];
  return {
    status: 200,
    contentType: 'text/plain; charset=utf-8',
    body: `${line}\n`,
    state: {
      log_key: log.text,
      checkpoints,
      cosigned: `${note.text}\n${[...note.signatures.filter((s) => isSignatureOf(s, log)).map((s) => s.line), line].join('\n')}\n`,
    },
  };
}
