import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/** A fixed-window counter of failed authentication (docs/decisions.md §4): per client address and subject, per subject. */
@Entity('login_rate')
export class LoginRate {
  @PrimaryColumn({ type: 'varchar', length: 320 })
  key: string;

  @Column({ type: 'integer' })
  hits: number;

  /** When the window resets, epoch milliseconds. */
  @Column({ name: 'resets_at', type: 'bigint', transformer: epochMs })
  resetsAt: number;
}
