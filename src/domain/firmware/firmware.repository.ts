import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Firmware } from './firmware.entity.js';
import { isStoredId } from '#src/platform/common/input-rules.js';

/** Database access for firmware records. */
@Injectable()
export class FirmwareRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(manager: EntityManager, firmware: Omit<Firmware, 'id'>): Promise<Firmware> {
    return manager.save(Firmware, manager.create(Firmware, firmware));
  }

  /**
   * The tenant's firmware with this id; `null` also for an id outside the column's range
   * ({@link isStoredId}). With `manager`, read in its transaction.
   */
  findById(tenantId: number, id: number, manager: EntityManager = this.dataSource.manager): Promise<Firmware | null> {
    if (!isStoredId(id)) return Promise.resolve(null);
    return manager.getRepository(Firmware).findOneBy({ tenantId, id });
  }

  findByCid(tenantId: number, cid: string): Promise<Firmware | null> {
    return this.dataSource.getRepository(Firmware).findOneBy({ tenantId, cid });
  }

  /** The firmware of a type at a version; `null` when none is published. */
  findByVersion(tenantId: number, deviceType: string, version: string): Promise<Firmware | null> {
    return this.dataSource.getRepository(Firmware).findOneBy({ tenantId, deviceType, version });
  }

  /** Rows `offset`..`offset + limit` of the tenant's firmware by id, and the tenant's total. */
  page(tenantId: number, offset: number, limit: number): Promise<[Firmware[], number]> {
    return this.dataSource.getRepository(Firmware).findAndCount({ where: { tenantId }, order: { id: 'ASC' }, skip: offset, take: limit });
  }

  /** Keeps the SHA-1 of a firmware published before SHA-1s were kept. */
  async setSha1(id: number, sha1: string): Promise<void> {
    await this.dataSource.getRepository(Firmware).update({ id }, { sha1 });
  }

  /** Sets or clears a firmware's rollback-target mark. */
  async setRollbackTarget(manager: EntityManager, id: number, rollbackTarget: boolean): Promise<void> {
    await manager.getRepository(Firmware).update({ id }, { rollbackTarget });
  }

  list(tenantId: number): Promise<Firmware[]> {
    return this.dataSource.getRepository(Firmware).find({ where: { tenantId }, order: { id: 'ASC' } });
  }
}
