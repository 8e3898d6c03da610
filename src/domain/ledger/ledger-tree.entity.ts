import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/**
 * A perfect subtree of the Merkle tree over the ledger entries (RFC 9162): level 0 holds the
 * leaf hash of entry `seq = idx + 1`; level L, index I covers entries `I * 2^L + 1` to
 * `(I + 1) * 2^L`. Written when its last entry is appended, in that entry's transaction.
 */
@Entity('ledger_tree_node')
export class LedgerTreeNode {
  @PrimaryColumn({ type: 'integer' })
  level: number;

  @PrimaryColumn({ name: 'idx', type: 'integer' })
  index: number;

  /** Lowercase hex SHA-256. */
  @Column({ type: 'varchar', length: 64 })
  hash: string;
}

/** A checkpoint the log signed: one per tree size (C2SP tlog-checkpoint). */
@Entity('ledger_checkpoint')
export class LedgerCheckpoint {
  @PrimaryColumn({ name: 'tree_size', type: 'integer' })
  treeSize: number;

  /** Lowercase hex root hash of the first `treeSize` entries. */
  @Column({ name: 'root_hash', type: 'varchar', length: 64 })
  rootHash: string;

  /** The signed note: the checkpoint text, a blank line, the log's signature line. */
  @Column({ type: 'text' })
  note: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}

/** A witness's cosignature of a checkpoint (C2SP tlog-cosignature), checked before it is kept. */
@Entity('ledger_cosignature')
export class LedgerCosignature {
  @PrimaryColumn({ name: 'tree_size', type: 'integer' })
  treeSize: number;

  /** The witness's verifier key (`<name>+<id>+<key>`). */
  @PrimaryColumn({ type: 'varchar', length: 300 })
  witness: string;

  /** The signature line, `— <name> <base64>`. */
  @Column({ type: 'text' })
  line: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;
}
