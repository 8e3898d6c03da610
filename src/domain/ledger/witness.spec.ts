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
import { witness, WitnessInputError, type WitnessSource, type WitnessState } from './witness.js';

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
