import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Device } from './device.entity.js';

/** Operator filters of a device list (CONTRACT.md §9); every one given must hold. */
export interface DeviceFilter {
  /** Member of this group (by id). */
  groupId?: number;
  firmwareVersion?: string;
  deviceType?: string;
  /** Last seen at or after this time, epoch milliseconds. */
  seenSince?: number;
}

/** Database access for devices. */
@Injectable()
export class DeviceRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  findByMac(tenantId: number, mac: string, manager: EntityManager = this.dataSource.manager): Promise<Device | null> {
    return manager.findOneBy(Device, { tenantId, mac });
  }

  /** All devices of a tenant, by mac. */
  list(tenantId: number): Promise<Device[]> {
    return this.dataSource.getRepository(Device).find({
      select: { mac: true, name: true, firmwareVersion: true },
      where: { tenantId },
      order: { mac: 'ASC' },
    });
  }

  /**
   * One page of a tenant's devices matching `filter`, by mac, and how many match in all.
   * Filters are SQL with bound parameters.
   */
  page(tenantId: number, filter: DeviceFilter, offset: number, limit: number): Promise<[Device[], number]> {
    const query = this.dataSource.getRepository(Device).createQueryBuilder('d').where('d.tenant_id = :tenantId', { tenantId });
    if (filter.groupId !== undefined) {
      query.andWhere('EXISTS (SELECT 1 FROM group_member m WHERE m.group_id = :groupId AND m.mac = d.mac)', { groupId: filter.groupId });
    }
    if (filter.firmwareVersion !== undefined)
      query.andWhere('d.firmware_version = :firmwareVersion', { firmwareVersion: filter.firmwareVersion });
    if (filter.deviceType !== undefined) query.andWhere('d.device_type = :deviceType', { deviceType: filter.deviceType });
    if (filter.seenSince !== undefined) query.andWhere('d.last_seen_at >= :seenSince', { seenSince: filter.seenSince });
    return query.orderBy('d.mac', 'ASC').offset(offset).limit(limit).getManyAndCount();
  }

  /** Inserts a device; a duplicate `(tenant, mac)` fails with a unique violation. */
  insert(manager: EntityManager, device: Omit<Device, 'id'>): Promise<Device> {
    return manager.save(Device, manager.create(Device, device));
  }

  async delete(manager: EntityManager, id: number): Promise<void> {
    await manager.delete(Device, { id });
  }

  async setFirmwareVersion(manager: EntityManager, id: number, firmwareVersion: string, lastSeenAt: number): Promise<void> {
    await manager.update(Device, { id }, { firmwareVersion, lastSeenAt });
  }

  async touch(manager: EntityManager, id: number, lastSeenAt: number): Promise<void> {
    await manager.update(Device, { id }, { lastSeenAt });
  }
}
