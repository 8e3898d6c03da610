import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { TufMetadata } from './tuf-metadata.entity.js';

/** Database access for TUF metadata. */
@Injectable()
export class TufRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The newest version of a role of one repository; `null` when none was signed. */
  newest(tenantId: number, deviceType: string, role: string, manager?: EntityManager): Promise<TufMetadata | null> {
    return (manager ?? this.dataSource.manager).findOne(TufMetadata, { where: { tenantId, deviceType, role }, order: { version: 'DESC' } });
  }

  /** One version of a role; `null` when absent. */
  version(tenantId: number, deviceType: string, role: string, version: number): Promise<TufMetadata | null> {
    if (!Number.isSafeInteger(version) || version < 1 || version > 2_147_483_647) return Promise.resolve(null);
    return this.dataSource.getRepository(TufMetadata).findOneBy({ tenantId, deviceType, role, version });
  }

  async insert(manager: EntityManager, metadata: TufMetadata): Promise<void> {
    await manager.insert(TufMetadata, metadata);
  }

  /** Every version of every role of one repository, by role then version (ascending). */
  all(tenantId: number, deviceType: string): Promise<TufMetadata[]> {
    return this.dataSource.getRepository(TufMetadata).find({ where: { tenantId, deviceType }, order: { role: 'ASC', version: 'ASC' } });
  }

  /** Every repository that holds metadata: its tenant and device type. */
  async repositories(): Promise<Array<{ tenantId: number; deviceType: string }>> {
    const rows = await this.dataSource
      .getRepository(TufMetadata)
      .createQueryBuilder('m')
      .select('m.tenant_id', 'tenantId')
      .addSelect('m.device_type', 'deviceType')
      .distinct(true)
      .orderBy('m.tenant_id', 'ASC')
      .addOrderBy('m.device_type', 'ASC')
      .getRawMany<{ tenantId: number | string; deviceType: string }>();
    return rows.map((row) => ({ tenantId: Number(row.tenantId), deviceType: row.deviceType }));
  }
}
