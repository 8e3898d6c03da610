import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  appendPath,
  CompactTree,
  consistencyProof,
  EMPTY_ROOT,
  inclusionProof,
  leafHash,
  nodeHash,
  nodeKey,
  nodesRead,
  rootHash,
  verifyConsistency,
  verifyInclusion,
  type NodeSource,
} from './merkle.js';

/**
 * The published vectors of transparency-dev/merkle (`testdata/`, Apache-2.0), gathered into one
 * file with their source: the eight RFC 6962 reference leaves, the roots of their first 0..8
 * leaves, and every inclusion and consistency case, valid and mutated.
 */
interface Vectors {
  leaves_hex: string[];
  roots_hex: string[];
  inclusion: Array<{
    leafIdx: number;
    treeSize: number;
    root: string;
    leafHash: string;
    proof: string[] | null;
    desc: string;
    wantErr: boolean;
    file: string;
  }>;
  consistency: Array<{
    size1: number;
    size2: number;
    root1: string;
    root2: string;
    proof: string[] | null;
    desc: string;
    wantErr: boolean;
    file: string;
  }>;
}
const vectors = JSON.parse(readFileSync('src/domain/ledger/testdata/merkle-vectors.json', 'utf8')) as Vectors;
const b64 = (text: string): Buffer => Buffer.from(text, 'base64');
/** Cases in the numbered folders are over the reference leaves; the others bring their own hashes. */
const overReferenceLeaves = (file: string): boolean => /^testdata\/\w+\/\d\//.test(file);

/** Every perfect subtree of the reference leaves, built bottom-up. */
function referenceNodes(): NodeSource {
  const nodes = new Map<string, Buffer>();
  let level = vectors.leaves_hex.map((hex) => leafHash(Buffer.from(hex, 'hex')));
  for (let l = 0; level.length > 0; l++) {
    level.forEach((hash, index) => nodes.set(nodeKey(l, index), hash));
    const next: Buffer[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(nodeHash(level[i], level[i + 1]));
    level = next;
  }
  return (l, index) => {
    const hash = nodes.get(nodeKey(l, index));
    if (!hash) throw new Error(`no node ${nodeKey(l, index)}`);
    return hash;
  };
}

describe('Merkle tree (RFC 9162)', () => {
  const nodes = referenceNodes();

  it('the root of the first 0..8 reference leaves is the published one', () => {
    assert.equal(EMPTY_ROOT.toString('hex'), vectors.roots_hex[0]);
    for (let size = 0; size <= 8; size++) assert.equal(rootHash(nodes, size).toString('hex'), vectors.roots_hex[size], `size ${size}`);
  });

  it('builds the published inclusion proofs, and verifies them', () => {
    const valid = vectors.inclusion.filter((v) => !v.wantErr);
    assert.ok(valid.length >= 5);
    for (const v of valid) {
      if (!overReferenceLeaves(v.file)) {
        assert.ok(verifyInclusion(v.leafIdx, v.treeSize, b64(v.leafHash), (v.proof ?? []).map(b64), b64(v.root)), v.file);
        continue;
      }
      const proof = inclusionProof(nodes, v.leafIdx, v.treeSize);
      assert.deepEqual(
        proof.map((p) => p.toString('base64')),
        v.proof ?? [],
        v.file,
      );
      assert.equal(leafHash(Buffer.from(vectors.leaves_hex[v.leafIdx], 'hex')).toString('base64'), v.leafHash, v.file);
      assert.ok(verifyInclusion(v.leafIdx, v.treeSize, b64(v.leafHash), proof, b64(v.root)), v.file);
    }
  });

  it('rejects every mutated inclusion case', () => {
    const invalid = vectors.inclusion.filter((v) => v.wantErr);
    assert.ok(invalid.length > 50);
    for (const v of invalid) {
      assert.equal(
        verifyInclusion(v.leafIdx, v.treeSize, b64(v.leafHash), (v.proof ?? []).map(b64), b64(v.root)),
        false,
        `${v.file}: ${v.desc}`,
      );
    }
  });

  it('builds the published consistency proofs, and verifies them', () => {
    const valid = vectors.consistency.filter((v) => !v.wantErr);
    assert.ok(valid.length >= 5);
    for (const v of valid) {
      if (!overReferenceLeaves(v.file)) {
        assert.ok(verifyConsistency(v.size1, v.size2, (v.proof ?? []).map(b64), b64(v.root1), b64(v.root2)), v.file);
        continue;
      }
      const proof = consistencyProof(nodes, v.size1, v.size2);
      assert.deepEqual(
        proof.map((p) => p.toString('base64')),
        v.proof ?? [],
        v.file,
      );
      assert.ok(verifyConsistency(v.size1, v.size2, proof, b64(v.root1), b64(v.root2)), v.file);
    }
  });

  it('rejects every mutated consistency case', () => {
    const invalid = vectors.consistency.filter((v) => v.wantErr);
    assert.ok(invalid.length > 80);
    for (const v of invalid) {
      assert.equal(
        verifyConsistency(v.size1, v.size2, (v.proof ?? []).map(b64), b64(v.root1), b64(v.root2)),
        false,
        `${v.file}: ${v.desc}`,
      );
    }
  });

  it('proves every leaf in every size and every size in every larger one of the reference tree', () => {
    for (let size = 1; size <= 8; size++) {
      const root = rootHash(nodes, size);
      for (let index = 0; index < size; index++) {
        const leaf = nodes(0, index);
        assert.ok(verifyInclusion(index, size, leaf, inclusionProof(nodes, index, size), root), `${index} in ${size}`);
        assert.equal(verifyInclusion(index, size, leaf, inclusionProof(nodes, index, size), rootHash(nodes, size - 1)), false);
      }
      for (let from = 1; from <= size; from++) {
        assert.ok(verifyConsistency(from, size, consistencyProof(nodes, from, size), rootHash(nodes, from), root), `${from} to ${size}`);
      }
    }
  });

  it('names the perfect subtrees a proof reads, so they are fetched at once', () => {
    const read = nodesRead((source) => inclusionProof(source, 5, 7));
    assert.deepEqual(read.map((n) => nodeKey(n.level, n.index)).sort(), ['0/4', '0/6', '2/0']);
  });
});

describe(CompactTree.name, () => {
  it('passes through the published root of every size and completes the same subtrees as the full tree', () => {
    const nodes = referenceNodes();
    const tree = new CompactTree();
    vectors.leaves_hex.forEach((hex, index) => {
      const completed = tree.push(leafHash(Buffer.from(hex, 'hex')));
      for (const node of completed) assert.ok(node.hash.equals(nodes(node.level, node.index)), `${node.level}/${node.index}`);
      assert.equal(tree.root().toString('hex'), vectors.roots_hex[index + 1]);
    });
    assert.deepEqual(
      appendPath(7, nodes(0, 7), nodes).map((n) => nodeKey(n.level, n.index)),
      ['0/7', '1/3', '2/1', '3/0'],
    );
  });

  it('goes on from a kept right edge to the same roots, and refuses an edge of another size', () => {
    const leaves = Array.from({ length: 20 }, (_, i) => leafHash(`leaf ${i}`));
    const whole = new CompactTree();
    leaves.forEach((leaf) => whole.push(leaf));
    const first = new CompactTree();
    leaves.slice(0, 13).forEach((leaf) => first.push(leaf));
    const resumed = CompactTree.fromEdge(13, first.edgeNodes());
    assert.equal(resumed.root().toString('hex'), first.root().toString('hex'));
    leaves.slice(13).forEach((leaf) => resumed.push(leaf));
    assert.equal(resumed.root().toString('hex'), whole.root().toString('hex'));
    assert.throws(() => CompactTree.fromEdge(12, first.edgeNodes()), RangeError);
    assert.throws(() => CompactTree.fromEdge(13, first.edgeNodes().reverse()), RangeError);
  });
});
