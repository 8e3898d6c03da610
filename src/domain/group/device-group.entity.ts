import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/** A named set of devices (by identifier) that rollouts target. */
@Entity('device_group')
export class DeviceGroup {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'tenant_id', type: 'integer' })
  tenantId: number;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt: number;

  /**
   * The filter of a dynamic group (docs/decisions.md §10.3), `null` for a static group. A dynamic
   * group's `group_member` rows are kept materialised: whoever matches the filter now.
   */
  @Column({ type: 'varchar', length: 1024, nullable: true })
  filter: string | null;
}

/**
 * Membership is by device identifier (a canonical mac or a controller id, docs/decisions.md §11),
 * so operators can plan a group before its devices first register. The column keeps its name.
 */
@Entity('group_member')
export class GroupMember {
  @PrimaryColumn({ name: 'group_id', type: 'integer' })
  groupId: number;

  @PrimaryColumn({ type: 'varchar', length: 256 })
  mac: string;
}
