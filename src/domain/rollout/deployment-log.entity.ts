import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/**
 * The log a device sent about its last failed attempt in a rollout (a Mender deployment log,
 * docs/decisions.md §13), shown with the failed device. One per rollout and device: a later log
 * replaces it.
 */
@Entity('deployment_log')
export class DeploymentLog {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'rollout_id', type: 'integer' })
  rolloutId: number;

  @Column({ name: 'device_id', type: 'integer' })
  deviceId: number;

  @Column({ name: 'received_at', type: 'bigint', transformer: epochMs })
  receivedAt: number;

  /** JSON array of {@link DeploymentLogLine}, oldest first. */
  @Column({ type: 'text' })
  messages: string;
}

/** One line of a deployment log, as the device wrote it. */
export interface DeploymentLogLine {
  /** As the device wrote it, e.g. RFC 3339 `2026-11-26T11:12:15Z`; `''` when it gave none. */
  timestamp: string;
  /** `debug`, `info`, `warning`, `error` … as the device wrote it (lower case). */
  level: string;
  message: string;
}
