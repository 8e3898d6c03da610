import { createHash } from 'node:crypto';

/**
 * Merkle tree hashing and proofs of RFC 9162 §2.1 (the RFC 6962 tree): a leaf hashes as
 * SHA-256(0x00 || data), an inner node as SHA-256(0x01 || left || right); a tree of n leaves
 * splits at the largest power of two below n. Pure functions: where the hashes come from is the
 * caller's {@link NodeSource}.
 */

/** Hash of an empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT = createHash('sha256').digest();

/** RFC 9162 leaf hash: SHA-256(0x00 || data). */
export function leafHash(data: Uint8Array | string): Buffer {
  return createHash('sha256')
    .update(Buffer.from([0]))
    .update(data)
    .digest();
}

/** RFC 9162 inner node hash: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256')
    .update(Buffer.from([1]))
    .update(left)
    .update(right)
    .digest();
}

/**
 * The hash of a perfect subtree: level `level` (0 = leaves), index `index` (it covers leaves
 * `index * 2^level` to `(index + 1) * 2^level - 1`). Only asked for subtrees that are complete.
 */
export type NodeSource = (level: number, index: number) => Buffer;

/** Key of a perfect subtree in a {@link NodeSource}: `level/index`. */
export const nodeKey = (level: number, index: number): string => `${level}/${index}`;

/** The largest power of two smaller than n (n > 1). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Whether n is 1, 2, 4, 8…; exact for every safe integer. */
const isPowerOfTwo = (n: number): boolean => n > 0 && Number.isInteger(Math.log2(n));

/** Hash of leaves `start`..`start + size - 1` (start aligned to the split points of the tree). */
export function subtreeHash(nodes: NodeSource, start: number, size: number): Buffer {
  if (size === 0) return EMPTY_ROOT;
  if (isPowerOfTwo(size) && start % size === 0) return nodes(Math.log2(size), start / size);
  const k = split(size);
  return nodeHash(subtreeHash(nodes, start, k), subtreeHash(nodes, start + k, size - k));
}

/** MTH(D[n]): the root of the first `size` leaves. */
export function rootHash(nodes: NodeSource, size: number): Buffer {
  return subtreeHash(nodes, 0, size);
}

/** RFC 9162 §2.1.3.1 PATH(m, D[n]): the inclusion proof of leaf `index` in the tree of `size` leaves. */
export function inclusionProof(nodes: NodeSource, index: number, size: number): Buffer[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path = (m: number, start: number, n: number): Buffer[] => {
    if (n === 1) return [];
    const k = split(n);
    return m < k
      ? [...path(m, start, k), subtreeHash(nodes, start + k, n - k)]
      : [...path(m - k, start + k, n - k), subtreeHash(nodes, start, k)];
  };
  return path(index, 0, size);
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]): the consistency proof from the tree of `from` leaves to that of `to`. */
export function consistencyProof(nodes: NodeSource, from: number, to: number): Buffer[] {
  if (!(from >= 0 && from <= to)) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  if (from === 0 || from === to) return [];
  const subproof = (m: number, start: number, n: number, whole: boolean): Buffer[] => {
    if (m === n) return whole ? [] : [subtreeHash(nodes, start, n)];
    const k = split(n);
    return m <= k
      ? [...subproof(m, start, k, whole), subtreeHash(nodes, start + k, n - k)]
      : [...subproof(m - k, start + k, n - k, false), subtreeHash(nodes, start, k)];
  };
  return subproof(from, 0, to, true);
}

/**
 * The perfect subtrees a computation reads, found by running it over placeholder hashes: the
 * caller fetches exactly these (one query) and runs it again over the real ones.
 */
export function nodesRead(run: (nodes: NodeSource) => unknown): Array<{ level: number; index: number }> {
  const seen = new Map<string, { level: number; index: number }>();
  run((level, index) => {
    seen.set(nodeKey(level, index), { level, index });
    return EMPTY_ROOT;
  });
  return [...seen.values()];
}

/** A SHA-256 hash is 32 bytes. */
const isHash = (hash: Uint8Array): boolean => hash.length === 32;

/**
 * RFC 9162 §2.1.3.2: whether `proof` shows the leaf with hash `leaf` at `index` in the tree of
 * `size` leaves whose root is `root`.
 */
export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: Uint8Array[], root: Uint8Array): boolean {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return false;
  if (![leaf, root, ...proof].every(isHash)) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/**
 * RFC 9162 §2.1.4.2: whether `proof` shows the tree of `from` leaves with root `fromRoot` to be
 * the start of the tree of `to` leaves with root `toRoot`.
 */
export function verifyConsistency(from: number, to: number, proof: Uint8Array[], fromRoot: Uint8Array, toRoot: Uint8Array): boolean {
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 0 && from <= to)) return false;
  if (from === 0) return false; // nothing to prove about an empty tree
  if (from === to) return proof.length === 0 && Buffer.from(fromRoot).equals(toRoot);
  if (![fromRoot, toRoot, ...proof].every(isHash)) return false;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(from) ? [Buffer.from(fromRoot), ...proof] : [...proof];
  let fn = from - 1;
  let sn = to - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = Buffer.from(path[0]);
  let sr: Buffer = Buffer.from(path[0]);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(fromRoot) && sr.equals(toRoot);
}

/** A perfect subtree and its hash. */
export interface TreeNode {
  level: number;
  index: number;
  hash: Buffer;
}

/**
 * The perfect subtrees that appending leaf `index` (0-based) completes: the leaf itself, then
 * each parent whose right child it completes. `left` gives the left siblings on the way (the
 * complete subtrees just before it), so an append reads and writes O(log n) nodes.
 */
export function appendPath(index: number, leaf: Buffer, left: NodeSource): TreeNode[] {
  const completed: TreeNode[] = [{ level: 0, index, hash: leaf }];
  let hash = leaf;
  for (let level = 0, i = index; i % 2 === 1; level++, i = (i - 1) / 2) {
    hash = nodeHash(left(level, i - 1), hash);
    completed.push({ level: level + 1, index: (i - 1) / 2, hash });
  }
  return completed;
}

/**
 * A tree built leaf by leaf in memory, keeping only the perfect subtrees of its right edge (a
 * compact range): the root of every size it passes through, for checking stored checkpoints.
 */
export class CompactTree {
  /** Right-edge perfect subtrees, largest first. */
  private edge: TreeNode[] = [];
  size = 0;

  /**
   * A tree of `size` leaves known only by its right edge ({@link CompactTree.edgeNodes}), to go on
   * pushing leaves onto it (a monitor that kept the edge instead of every leaf).
   * @throws RangeError when the nodes are not the edge of a tree of that size.
   */
  static fromEdge(size: number, edge: readonly TreeNode[]): CompactTree {
    const tree = new CompactTree();
    let covered = 0;
    for (const node of edge) {
      if (node.index * 2 ** node.level !== covered || node.hash.length !== 32) throw new RangeError('not the right edge of a tree');
      covered += 2 ** node.level;
    }
    if (covered !== size || edge.some((node, i) => i > 0 && node.level >= edge[i - 1].level)) {
      throw new RangeError(`not the right edge of a tree of ${size} leaves`);
    }
    tree.edge = edge.map((node) => ({ ...node, hash: Buffer.from(node.hash) }));
    tree.size = size;
    return tree;
  }

  /** The right-edge perfect subtrees, largest first: with the size, all that is needed to go on. */
  edgeNodes(): TreeNode[] {
    return this.edge.map((node) => ({ ...node }));
  }

  /** Appends a leaf hash; returns the perfect subtrees it completes (as {@link appendPath}). */
  push(leaf: Buffer): TreeNode[] {
    const completed = appendPath(this.size, leaf, (level) => this.edge.find((n) => n.level === level)!.hash);
    const top = completed[completed.length - 1];
    this.edge = [...this.edge.filter((n) => n.level > top.level), top];
    this.size++;
    return completed;
  }

  /** The root of the leaves pushed so far. */
  root(): Buffer {
    if (this.edge.length === 0) return EMPTY_ROOT;
    return this.edge.slice(0, -1).reduceRight((right, node) => nodeHash(node.hash, right), this.edge[this.edge.length - 1].hash);
  }
}
