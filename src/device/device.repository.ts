import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Device } from './device.entity.js';

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
