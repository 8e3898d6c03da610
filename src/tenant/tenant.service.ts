import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '#src/common/clock.js';
import { isUniqueViolation } from '#src/common/unique-violation.js';
import { UnitOfWork } from '#src/database/unit-of-work.js';
import { LedgerService, Subject } from '#src/chain/ledger.service.js';
import type { DeviceKey } from './device-key.entity.js';
import type { Tenant } from './tenant.entity.js';
import { TenantRepository } from './tenant.repository.js';

/** A new tenant; the only time its customer key is shown. */
export interface CreatedTenant {
  id: number;
  name: string;
  customerKey: string;
}

/** A device key as operators see it. */
export interface DeviceKeyView {
  id: number;
  tenantId: number;
  key: string;
  deviceType: string;
  revoked: boolean;
  createdAt: string;
}

/** Tenants and device keys (CONTRACT.md §5). Secrets are generated here, never chosen. */
@Injectable()
export class TenantService {
  constructor(
    private readonly tenants: TenantRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates a tenant with a fresh random customer key.
   * @throws ConflictException when the name is taken.
   */
  async createTenant(name: string): Promise<CreatedTenant> {
    try {
      const tenant = await this.unitOfWork.transaction(async (manager) => {
        const created = await this.tenants.insertTenant(manager, {
          name,
          customerKey: randomBytes(24).toString('base64url'),
          createdAt: this.clock.now(),
        });
        await this.ledger.append(manager, {
          tenantId: created.id,
          type: 'tenant.created',
          subject: Subject.tenant(created.id),
          state: { id: created.id, name },
        });
        return created;
      });
      return { id: tenant.id, name: tenant.name, customerKey: tenant.customerKey };
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(`Tenant "${name}" exists`);
      throw error;
    }
  }

  /** Tenants without their customer keys. */
  async listTenants(): Promise<{ id: number; name: string; createdAt: string }[]> {
    return (await this.tenants.listTenants()).map((t) => ({ id: t.id, name: t.name, createdAt: new Date(t.createdAt).toISOString() }));
  }

  /**
   * Finds a tenant by numeric id or by name.
   * @throws NotFoundException when there is none.
   */
  async resolveTenant(idOrName: string | number): Promise<Tenant> {
    const tenant =
      typeof idOrName === 'number' || /^\d+$/.test(idOrName)
        ? await this.tenants.findTenant(Number(idOrName))
        : await this.tenants.findTenantByName(idOrName);
    if (!tenant) throw new NotFoundException(`Tenant "${idOrName}" not found`);
    return tenant;
  }

  /** Creates a device key for devices of one type (`dType`, e.g. `ESP32`). */
  async createDeviceKey(tenantId: number, deviceType: string): Promise<DeviceKeyView> {
    const key = await this.unitOfWork.transaction(async (manager) => {
      const created = await this.tenants.insertDeviceKey(manager, {
        tenantId,
        key: randomBytes(16).toString('hex'),
        deviceType,
        revokedAt: null,
        createdAt: this.clock.now(),
      });
      await this.ledger.append(manager, {
        tenantId,
        type: 'device-key.created',
        subject: Subject.deviceKey(created.id),
        state: { id: created.id, deviceType, revoked: false },
      });
      return created;
    });
    return toView(key);
  }

  /**
   * Revokes a device key: its logins and its tokens stop working at once.
   * @throws NotFoundException when the key is not the tenant's.
   */
  async revokeDeviceKey(tenantId: number, keyOrId: string): Promise<DeviceKeyView> {
    const key = /^\d+$/.test(keyOrId) ? await this.tenants.findDeviceKey(Number(keyOrId)) : await this.tenants.findDeviceKeyByKey(keyOrId);
    if (!key || key.tenantId !== tenantId) throw new NotFoundException(`Device key "${keyOrId}" not found`);
    if (key.revokedAt !== null) return toView(key);
    const at = this.clock.now();
    await this.unitOfWork.transaction(async (manager) => {
      await this.tenants.revokeDeviceKey(manager, key.id, at);
      await this.ledger.append(manager, {
        tenantId,
        type: 'device-key.revoked',
        subject: Subject.deviceKey(key.id),
        state: { id: key.id, deviceType: key.deviceType, revoked: true },
      });
    });
    return toView({ ...key, revokedAt: at });
  }

  async listDeviceKeys(tenantId: number): Promise<DeviceKeyView[]> {
    return (await this.tenants.listDeviceKeys(tenantId)).map(toView);
  }
}

function toView(key: DeviceKey): DeviceKeyView {
  return {
    id: key.id,
    tenantId: key.tenantId,
    key: key.key,
    deviceType: key.deviceType,
    revoked: key.revokedAt !== null,
    createdAt: new Date(key.createdAt).toISOString(),
  };
}
