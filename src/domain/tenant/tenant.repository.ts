import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PreparedRead } from '#src/platform/database/prepared-read.js';
import { DeviceKey } from './device-key.entity.js';
import { Tenant } from './tenant.entity.js';
import { isStoredId } from '#src/platform/common/input-rules.js';

/** A device key joined with what login needs of its tenant. */
export interface LoginKey {
  id: number;
  tenantId: number;
  deviceType: string;
  revokedAt: number | null;
  customerKey: string;
  /** A `(device key, timestamp)` is accepted once (docs/decisions.md §4). */
  singleDevice: boolean;
}

/** A `device_key` row for token checks, as the drivers return it. */
interface TokenKeyRow {
  id: number | string;
  tenant_id: number | string;
  device_type: string;
  revoked_at: number | string | null;
}

/** A device key with its tenant's customer key, as the drivers return it. */
interface LoginKeyRow extends TokenKeyRow {
  customer_key: string;
  /** SQLite answers 0 or 1, PostgreSQL a boolean. */
  single_device: boolean | number;
}

/** What token checks and logins need of a key row, with PostgreSQL's `bigint` text made numbers. */
function tokenKeyOf(row: TokenKeyRow): Pick<DeviceKey, 'id' | 'tenantId' | 'deviceType' | 'revokedAt'> {
  return {
    id: Number(row.id),
    tenantId: Number(row.tenant_id),
    deviceType: row.device_type,
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

const FIND_LOGIN_KEY = `SELECT k.id AS id, k.tenant_id AS tenant_id, k.device_type AS device_type, k.revoked_at AS revoked_at,
    k.single_device AS single_device, t.customer_key AS customer_key
  FROM device_key k INNER JOIN tenant t ON t.id = k.tenant_id WHERE k.key = $1`;

const FIND_TOKEN_KEY = 'SELECT id, tenant_id, device_type, revoked_at FROM device_key WHERE id = $1';

/** A `tenant` row as the drivers return it (PostgreSQL's `bigint` as text). */
interface TenantRow {
  id: number | string;
  name: string;
  customer_key: string;
  created_at: number | string;
  ddi_polling_seconds: number | string;
  artifact_verify_key: string | null;
}

/** The tenant of a name: every DDI request names its tenant in its path. */
const FIND_TENANT_BY_NAME = `SELECT id, name, customer_key, created_at, ddi_polling_seconds, artifact_verify_key FROM tenant WHERE name = $1`;

/** A `device_key` row as the drivers return it (SQLite's booleans as 0 or 1). */
interface DeviceKeyRow extends TokenKeyRow {
  key: string;
  single_device: boolean | number;
  auto_accept: boolean | number;
  ddi_gateway: boolean | number;
  created_at: number | string;
}

/** The device key with this text: what a DDI gateway token names on every poll. */
const FIND_KEY_BY_TEXT = `SELECT id, tenant_id, key, device_type, single_device, auto_accept, ddi_gateway, revoked_at, created_at
  FROM device_key WHERE key = $1`;

/** Database access for tenants and device keys. */
@Injectable()
export class TenantRepository {
  private readonly tokenKeyRead: PreparedRead<TokenKeyRow>;
  private readonly loginKeyRead: PreparedRead<LoginKeyRow>;
  private readonly tenantByNameRead: PreparedRead<TenantRow>;
  private readonly keyByTextRead: PreparedRead<DeviceKeyRow>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.tokenKeyRead = new PreparedRead(dataSource, FIND_TOKEN_KEY);
    this.loginKeyRead = new PreparedRead(dataSource, FIND_LOGIN_KEY);
    this.tenantByNameRead = new PreparedRead(dataSource, FIND_TENANT_BY_NAME);
    this.keyByTextRead = new PreparedRead(dataSource, FIND_KEY_BY_TEXT);
  }

  /**
   * The tenant with this name, for operator requests. Its lookup stays behind the validation of a
   * request's other parameters: Nest resolves a handler's parameters at once, and the `tenant`
   * pipes' answer (404) must not overtake a 400 of the query (the prepared read does).
   */
  findTenantByName(name: string): Promise<Tenant | null> {
    return this.dataSource.getRepository(Tenant).findOneBy({ name });
  }

  /** The tenant with this name, as a prepared read: every DDI poll names its tenant in its path. */
  async pollTenantByName(name: string): Promise<Tenant | null> {
    const [row] = await this.tenantByNameRead.all([name]);
    if (row === undefined) return null;
    return Object.assign(new Tenant(), {
      id: Number(row.id),
      name: row.name,
      customerKey: row.customer_key,
      createdAt: Number(row.created_at),
      ddiPollingSeconds: Number(row.ddi_polling_seconds),
      artifactVerifyKey: row.artifact_verify_key,
    });
  }

  /** The tenant with this id; `null` also for an id outside the column's range ({@link isStoredId}). */
  findTenant(id: number): Promise<Tenant | null> {
    if (!isStoredId(id)) return Promise.resolve(null);
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

  /** Sets the polling interval of the tenant's DDI devices, seconds. */
  async setDdiPolling(manager: EntityManager, id: number, seconds: number): Promise<void> {
    await manager.update(Tenant, { id }, { ddiPollingSeconds: seconds });
  }

  /** Sets the PEM key the tenant's Mender artifacts must be signed with, or clears it (`null`). */
  async setArtifactVerifyKey(manager: EntityManager, id: number, pem: string | null): Promise<void> {
    await manager.update(Tenant, { id }, { artifactVerifyKey: pem });
  }

  /** Sets whether a device key is a DDI gateway token. */
  async setDdiGateway(manager: EntityManager, id: number, ddiGateway: boolean): Promise<void> {
    await manager.update(DeviceKey, { id }, { ddiGateway });
  }

  /** Sets whether a device key accepts new Mender devices at once. */
  async setAutoAccept(manager: EntityManager, id: number, autoAccept: boolean): Promise<void> {
    await manager.update(DeviceKey, { id }, { autoAccept });
  }

  async insertTenant(manager: EntityManager, tenant: Omit<Tenant, 'id'>): Promise<Tenant> {
    return manager.save(Tenant, manager.create(Tenant, tenant));
  }

  async insertDeviceKey(manager: EntityManager, key: Omit<DeviceKey, 'id'>): Promise<DeviceKey> {
    return manager.save(DeviceKey, manager.create(DeviceKey, key));
  }

  /** The device key with this id; `null` also for an id outside the column's range ({@link isStoredId}). */
  findDeviceKey(id: number): Promise<DeviceKey | null> {
    if (!isStoredId(id)) return Promise.resolve(null);
    return this.dataSource.getRepository(DeviceKey).findOneBy({ id });
  }

  /**
   * What checking a device token needs of its key: one lookup by primary key, prepared once
   * (every device request checks its token).
   */
  async findTokenKey(id: number): Promise<Pick<DeviceKey, 'id' | 'tenantId' | 'deviceType' | 'revokedAt'> | null> {
    const [row] = await this.tokenKeyRead.all([id]);
    return row ? tokenKeyOf(row) : null;
  }

  /** The device key with this text (a prepared read: a DDI gateway token names it on every poll). */
  async findDeviceKeyByKey(key: string): Promise<DeviceKey | null> {
    const [row] = await this.keyByTextRead.all([key]);
    if (row === undefined) return null;
    return Object.assign(new DeviceKey(), {
      ...tokenKeyOf(row),
      key: row.key,
      singleDevice: row.single_device === true || row.single_device === 1,
      autoAccept: row.auto_accept === true || row.auto_accept === 1,
      ddiGateway: row.ddi_gateway === true || row.ddi_gateway === 1,
      createdAt: Number(row.created_at),
    });
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

  /** The key a login names, with its tenant's customer key; `null` when unknown. One lookup, prepared once. */
  async findLoginKey(key: string): Promise<LoginKey | null> {
    const [row] = await this.loginKeyRead.all([key]);
    return row ? { ...tokenKeyOf(row), customerKey: row.customer_key, singleDevice: Boolean(row.single_device) } : null;
  }
}
