import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { isStoredId } from '#src/platform/common/input-rules.js';
import { DeviceKey } from '#src/domain/tenant/device-key.entity.js';
import { DeviceAuthSet, type AuthSetStatus } from './device-auth-set.entity.js';

/** An auth set with what its device key says (type, revoked), for views and token checks. */
export interface AuthSetWithKey extends DeviceAuthSet {
  /** The device type of its device key, `null` without one. */
  deviceType: string | null;
  /** Whether its device key is revoked. */
  keyRevoked: boolean;
}

/** Database access for auth sets (docs/decisions.md §13). */
@Injectable()
export class DeviceAuthRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The tenant's auth set of this identifier and key fingerprint, or `null`. */
  find(
    tenantId: number,
    identifier: string,
    fingerprint: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<DeviceAuthSet | null> {
    return manager.getRepository(DeviceAuthSet).findOneBy({ tenantId, identifier, fingerprint });
  }

  /** The tenant's auth set `id`, or `null` (also for an id outside the column's range). */
  findById(tenantId: number, id: number, manager: EntityManager = this.dataSource.manager): Promise<DeviceAuthSet | null> {
    if (!isStoredId(id)) return Promise.resolve(null);
    return manager.getRepository(DeviceAuthSet).findOneBy({ tenantId, id });
  }

  /** Every auth set of the tenant's identifier, oldest first. */
  ofIdentifier(tenantId: number, identifier: string, manager: EntityManager = this.dataSource.manager): Promise<DeviceAuthSet[]> {
    return manager.getRepository(DeviceAuthSet).find({ where: { tenantId, identifier }, order: { id: 'ASC' } });
  }

  /** The auth set `id` with its device key's type and revocation, or `null`. */
  async withKey(tenantId: number, id: number): Promise<AuthSetWithKey | null> {
    if (!isStoredId(id)) return null;
    const set = await this.dataSource.getRepository(DeviceAuthSet).findOneBy({ tenantId, id });
    if (!set) return null;
    const [withKey] = await this.attachKeys([set]);
    return withKey;
  }

  /** One page of the tenant's auth sets in `statuses` (all when empty), newest first, and how many there are. */
  async page(tenantId: number, statuses: readonly AuthSetStatus[], offset: number, limit: number): Promise<[AuthSetWithKey[], number]> {
    const [sets, total] = await this.dataSource.getRepository(DeviceAuthSet).findAndCount({
      where: statuses.length > 0 ? { tenantId, status: In([...statuses]) } : { tenantId },
      order: { id: 'DESC' },
      skip: offset,
      take: limit,
    });
    return [await this.attachKeys(sets), total];
  }

  async insert(manager: EntityManager, set: Omit<DeviceAuthSet, 'id'>): Promise<DeviceAuthSet> {
    return manager.save(DeviceAuthSet, manager.create(DeviceAuthSet, set));
  }

  /** Changes an auth set's fields (its `updated_at` with them). */
  async update(manager: EntityManager, id: number, fields: Partial<Omit<DeviceAuthSet, 'id' | 'tenantId'>>): Promise<void> {
    await manager.update(DeviceAuthSet, { id }, fields);
  }

  private async attachKeys(sets: DeviceAuthSet[]): Promise<AuthSetWithKey[]> {
    const ids = [...new Set(sets.map((s) => s.deviceKeyId).filter((id): id is number => id !== null))];
    const keys = ids.length === 0 ? [] : await this.dataSource.getRepository(DeviceKey).findBy({ id: In(ids) });
    return sets.map((set) => {
      const key = keys.find((k) => k.id === set.deviceKeyId);
      return { ...set, deviceType: key?.deviceType ?? null, keyRevoked: key !== undefined && key.revokedAt !== null };
    });
  }
}
