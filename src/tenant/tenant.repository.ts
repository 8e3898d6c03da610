import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PreparedRead } from '#src/database/sql.js';
import { DeviceKey } from './device-key.entity.js';
import { Tenant } from './tenant.entity.js';

/** A device key joined with what login needs of its tenant. */
export interface LoginKey {
  id: number;
  tenantId: number;
  deviceType: string;
  revokedAt: number | null;
  customerKey: string;
}

/** A `device_key` row for token checks, as the drivers return it. */
interface TokenKeyRow {
  id: number | string;
  tenant_id: number | string;
  device_type: string;
  revoked_at: number | string | null;
}

const FIND_TOKEN_KEY = 'SELECT id, tenant_id, device_type, revoked_at FROM device_key WHERE id = $1';

/** Database access for tenants and device keys. */
@Injectable()
export class TenantRepository {
  private readonly tokenKeyRead: PreparedRead<TokenKeyRow>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.tokenKeyRead = new PreparedRead(dataSource, FIND_TOKEN_KEY);
  }

  findTenantByName(name: string): Promise<Tenant | null> {
    return this.dataSource.getRepository(Tenant).findOneBy({ name });
  }

  findTenant(id: number): Promise<Tenant | null> {
    return this.dataSource.getRepository(Tenant).findOneBy({ id });
  }

  listTenants(): Promise<Tenant[]> {
    return this.dataSource.getRepository(Tenant).find({ order: { id: 'ASC' } });
  }

  /** One page of tenants by id, and how many there are. */
  pageTenants(offset: number, limit: number): Promise<[Tenant[], number]> {
    return this.dataSource.getRepository(Tenant).findAndCount({ order: { id: 'ASC' }, skip: offset, take: limit });
  }

  async setCustomerKey(manager: EntityManager, id: number, customerKey: string): Promise<void> {
    await manager.update(Tenant, { id }, { customerKey });
  }

  async insertTenant(manager: EntityManager, tenant: Omit<Tenant, 'id'>): Promise<Tenant> {
    return manager.save(Tenant, manager.create(Tenant, tenant));
  }

  async insertDeviceKey(manager: EntityManager, key: Omit<DeviceKey, 'id'>): Promise<DeviceKey> {
    return manager.save(DeviceKey, manager.create(DeviceKey, key));
  }

  findDeviceKey(id: number): Promise<DeviceKey | null> {
    return this.dataSource.getRepository(DeviceKey).findOneBy({ id });
  }

  /**
   * What checking a device token needs of its key: one lookup by primary key, prepared once
   * (every device request checks its token).
   */
  async findTokenKey(id: number): Promise<Pick<DeviceKey, 'id' | 'tenantId' | 'deviceType' | 'revokedAt'> | null> {
    const [row] = await this.tokenKeyRead.all([id]);
    return row
      ? {
          id: Number(row.id),
          tenantId: Number(row.tenant_id),
          deviceType: row.device_type,
          revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
        }
      : null;
  }

  findDeviceKeyByKey(key: string): Promise<DeviceKey | null> {
    return this.dataSource.getRepository(DeviceKey).findOneBy({ key });
  }

  listDeviceKeys(tenantId: number): Promise<DeviceKey[]> {
    return this.dataSource.getRepository(DeviceKey).find({ where: { tenantId }, order: { id: 'ASC' } });
  }

  /** One page of a tenant's device keys by id, and how many it has. */
  pageDeviceKeys(tenantId: number, offset: number, limit: number): Promise<[DeviceKey[], number]> {
    return this.dataSource.getRepository(DeviceKey).findAndCount({ where: { tenantId }, order: { id: 'ASC' }, skip: offset, take: limit });
  }

  async revokeDeviceKey(manager: EntityManager, id: number, at: number): Promise<void> {
    await manager.update(DeviceKey, { id }, { revokedAt: at });
  }

  /** The key a login names, with its tenant's customer key; `null` when unknown. */
  async findLoginKey(key: string): Promise<LoginKey | null> {
    const row = await this.dataSource
      .getRepository(DeviceKey)
      .createQueryBuilder('k')
      .innerJoin(Tenant, 't', 't.id = k.tenant_id')
      .select([
        'k.id AS id',
        'k.tenant_id AS "tenantId"',
        'k.device_type AS "deviceType"',
        'k.revoked_at AS "revokedAt"',
        't.customer_key AS "customerKey"',
      ])
      .where('k.key = :key', { key })
      .getRawOne<LoginKey>();
    return row
      ? { ...row, id: Number(row.id), tenantId: Number(row.tenantId), revokedAt: row.revokedAt === null ? null : Number(row.revokedAt) }
      : null;
  }
}
