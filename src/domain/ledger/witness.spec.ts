import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { consistencyProof, leafHash, nodeHash, nodeKey, rootHash, type NodeSource } from './merkle.js';
import {
  checkpointText,
  COSIGNATURE_ED25519,
  ED25519,
  generateSigner,
  parseNote,
  signNote,
  verifyCosignature,
} from '#src/platform/crypto/signed-note.js';
import { addCheckpoint, witness, WitnessInputError, type WitnessSource, type WitnessState } from './witness.js';

const log = generateSigner('example.com/log', ED25519);
const witnessKey = generateSigner('witness.example/w', COSIGNATURE_ED25519);

/** An in-memory log over the given leaf texts, serving its checkpoint and consistency proofs. */
function logOf(leaves: string[], signer = log): WitnessSource {
  const nodes = new Map<string, Buffer>();
  let level = leaves.map((leaf) => leafHash(leaf));
  for (let l = 0; level.length > 0; l++) {
    level.forEach((hash, index) => nodes.set(nodeKey(l, index), hash));
    const next: Buffer[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(nodeHash(level[i], level[i + 1]));
    level = next;
  }
  const source: NodeSource = (l, index) => nodes.get(nodeKey(l, index))!;
  return {
    checkpoint: () =>
      Promise.resolve(
        signNote(checkpointText({ origin: signer.name, size: leaves.length, root: rootHash(source, leaves.length) }), signer),
      ),
    consistency: (from, to) => Promise.resolve(consistencyProof(source, from, to)),
  };
}

const entries = (n: number, tag = 'a'): string[] => Array.from({ length: n }, (_, i) => `entry ${i + 1} ${i < 5 ? 'a' : tag}`);

/** Runs the witness over each log in turn, carrying its state; returns the last outcome. */
async function run(...logs: WitnessSource[]) {
  let state: WitnessState | null = null;
  let outcome;
  for (const source of logs) {
    outcome = await witness(state, log.text, source, witnessKey, 1_700_000_000);
    state = outcome.state;
  }
  return outcome as Awaited<ReturnType<typeof witness>>;
}

describe('witness', () => {
  it('cosigns the first checkpoint and each consistent one after it', async () => {
    const outcome = await run(logOf(entries(3)), logOf(entries(4)), logOf(entries(9)));
    assert.ok(outcome.ok);
    assert.equal(outcome.size, 9);
    assert.equal(outcome.previous, 4);
    assert.deepEqual(
      outcome.state.checkpoints.map((c) => c.size),
      [3, 4, 9],
    );
    assert.equal(verifyCosignature(parseNote(outcome.cosigned), witnessKey), 1_700_000_000);
  });

  it('names the first size after the truncation when the log shrank', async () => {
    const outcome = await run(...[5, 6, 7, 8].map((n) => logOf(entries(n))), logOf(entries(6)));
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok);
    assert.equal(outcome.firstDifferingSize, 7);
    assert.match(outcome.message, /at tree size 7 \(the log now has 6 entries; it had at least 7\)/);
  });

  it('names the first rewritten size when the log forked and grew past the witnessed size', async () => {
    const outcome = await run(...[4, 5, 6, 7, 8].map((n) => logOf(entries(n))), logOf(entries(12, 'forked')));
    assert.ok(!outcome.ok);
    assert.equal(outcome.firstDifferingSize, 6, 'entries 6… differ');
  });

  it('gives a range when it did not see the sizes around the fork', async () => {
    const outcome = await run(logOf(entries(2)), logOf(entries(9)), logOf(entries(12, 'forked')));
    assert.ok(!outcome.ok);
    assert.match(outcome.message, /at a tree size from 3 to 9/);
  });

  it('refuses a checkpoint the log key did not sign', async () => {
    const other = generateSigner('example.com/log', ED25519);
    await assert.rejects(witness(null, log.text, logOf(entries(2), other), witnessKey, 0), WitnessInputError);
    await assert.rejects(witness(null, undefined, logOf(entries(2)), witnessKey, 0), WitnessInputError);
  });
});

/** An `add-checkpoint` body: `old <size>`, the proof lines, an empty line, the checkpoint note. */
const body = (old: number, proof: Buffer[], note: string): string =>
  `old ${old}\n${proof.map((hash) => `${hash.toString('base64')}\n`).join('')}\n${note}`;

describe('addCheckpoint (C2SP tlog-witness)', () => {
  const now = 1_700_000_000;
  /** The witness state after cosigning a log of `n` entries from scratch. */
  const after = async (n: number): Promise<WitnessState> => {
    const first = addCheckpoint(body(0, [], await logOf(entries(n)).checkpoint()), null, log.text, witnessKey, now);
    assert.equal(first.status, 200, first.body);
    return first.state!;
  };

  it('cosigns a first checkpoint from old 0, then one proved consistent with it, and keeps both', async () => {
    const state = await after(3);
    const source = logOf(entries(9));
    const note = await source.checkpoint();
    const answer = addCheckpoint(body(3, await source.consistency(3, 9), note), state, log.text, witnessKey, now);
    assert.equal(answer.status, 200, answer.body);
    assert.match(answer.body, /^\u2014 witness\.example\/w [A-Za-z0-9+/]{102}==\n$/);
    assert.equal(verifyCosignature(parseNote(`${parseNote(note).text}\n${answer.body}`), witnessKey), now);
    assert.deepEqual(
      answer.state!.checkpoints.map((c) => c.size),
      [3, 9],
    );
    assert.equal(verifyCosignature(parseNote(answer.state!.cosigned!), witnessKey), now, 'the monitoring copy carries it');
  });

  it('answers 409 with the size it knows when old is another size, and changes nothing', async () => {
    const state = await after(3);
    const note = await logOf(entries(5)).checkpoint();
    for (const old of [0, 2, 4]) {
      const answer = addCheckpoint(body(old, [], note), state, log.text, witnessKey, now);
      assert.deepEqual(
        [answer.status, answer.contentType, answer.body, answer.state],
        [409, 'text/x.tlog.size', '3\n', undefined],
        `old ${old}`,
      );
    }
  });

  it('answers 422 for a fork: a proof that fails, another root at the same size, a proof from 0, a bad empty root', async () => {
    const state = await after(5);
    const forked = logOf(entries(8).map((entry, i) => (i === 3 ? `${entry} rewritten` : entry)));
    const fork = addCheckpoint(body(5, await forked.consistency(5, 8), await forked.checkpoint()), state, log.text, witnessKey, now);
    assert.equal(fork.status, 422, fork.body);
    assert.match(fork.body, /does not extend the cosigned one/);
    const same = addCheckpoint(
      body(5, [], await logOf(entries(5, 'x').map((e, i) => `${e}${i}`)).checkpoint()),
      state,
      log.text,
      witnessKey,
      now,
    );
    assert.equal(same.status, 422, same.body);
    assert.match(same.body, /differs from the one cosigned at tree size 5: the log forked/);
    const fromZero = addCheckpoint(body(0, [Buffer.alloc(32)], await logOf(entries(2)).checkpoint()), null, log.text, witnessKey, now);
    assert.equal(fromZero.status, 422);
    const empty = signNote(checkpointText({ origin: log.name, size: 0, root: Buffer.alloc(32) }), log);
    assert.equal(addCheckpoint(body(0, [], empty), null, log.text, witnessKey, now).status, 422);
  });

  it('answers 404 for another origin, 403 without a valid signature of the log, 400 for a malformed body', async () => {
    const other = generateSigner('example.com/other', ED25519);
    assert.equal(addCheckpoint(body(0, [], await logOf(entries(2), other).checkpoint()), null, log.text, witnessKey, now).status, 404);
    const impostor = generateSigner('example.com/log', ED25519);
    assert.equal(addCheckpoint(body(0, [], await logOf(entries(2), impostor).checkpoint()), null, log.text, witnessKey, now).status, 403);
    const note = await logOf(entries(2)).checkpoint();
    const broken = note.replace(
      / (\S+)\n$/,
      (_, sig: string) => ` ${Buffer.from(Buffer.from(sig, 'base64').map((b, i) => (i === 10 ? b ^ 1 : b))).toString('base64')}\n`,
    );
    assert.equal(addCheckpoint(body(0, [], broken), null, log.text, witnessKey, now).status, 403, 'a line naming the log key that fails');
    const state = await after(2);
    for (const bad of [
      '',
      'old 1\n',
      'old 01\n\n' + note,
      'new 0\n\n' + note,
      'old 0\nnot-a-hash\n\n' + note,
      'old 0\n\nnot a note',
      body(3, [], note),
    ]) {
      assert.equal(addCheckpoint(bad, state, log.text, witnessKey, now).status, 400, JSON.stringify(bad));
    }
  });
});
