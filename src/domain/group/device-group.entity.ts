import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { epochMs } from '#src/platform/database/columns.js';

/** A named set of devices (by mac) that rollouts target. */
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
}

/**
 * Membership is by canonical mac, so operators can plan a group before its devices first
 * register.
 */
@Entity('group_member')
export class GroupMember {
  @PrimaryColumn({ name: 'group_id', type: 'integer' })
  groupId: number;

  @PrimaryColumn({ type: 'varchar', length: 23 })
  mac: string;
}
