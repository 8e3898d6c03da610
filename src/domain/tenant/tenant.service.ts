import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { FieldException } from '#src/platform/http/http-error.filter.js';
import { randomBytes, randomInt } from 'node:crypto';
import { Clock } from '#src/platform/common/clock.js';
import { NO_CONTROL } from '#src/platform/common/dto-fields.js';
import type { Counted, Slice } from '#src/platform/common/paging.js';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { INVALID_ARTIFACT_VERIFY_KEY, keyFingerprint, readArtifactVerifyKey } from '#src/platform/crypto/public-key.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import { DEFAULT_DDI_POLLING_SECONDS, DDI_POLLING_SECONDS, INVALID_POLLING_SLEEP } from './ddi-polling.js';
import type { DeviceKey } from './device-key.entity.js';
import type { Tenant } from './tenant.entity.js';
import { TenantRepository } from './tenant.repository.js';

/** A tenant as operators see it: never its customer key. */
export interface TenantView {
  id: number;
  name: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  /** Seconds between the polls of its hawkBit DDI devices (docs/decisions.md §12). */
  ddiPollingSeconds: number;
  /**
   * SHA-256 fingerprint of the key its Mender artifacts must be signed with (docs/decisions.md
   * §13), `null` when it has none.
   */
  artifactVerifyKeyFingerprint: string | null;
}

/** A new tenant, or one whose customer key was just rotated: the only times the key is shown. */
export interface CreatedTenant extends TenantView {
  customerKey: string;
}

/** A device key as operators see it. */
export interface DeviceKeyView {
  id: number;
  tenantId: number;
  key: string;
  deviceType: string;
  /** The key belongs to one device: a `(device key, timestamp)` logs in once (docs/decisions.md §4). */
  singleDevice: boolean;
  /** Mender devices new to the tenant that authenticate with it are accepted at once (docs/decisions.md §13). */
  autoAccept: boolean;
  /** The key is a hawkBit DDI gateway token for the tenant's DDI devices (docs/decisions.md §12). */
  ddiGateway: boolean;
  revoked: boolean;
  createdAt: string;
}

/** Tenants and device keys (docs/decisions.md §5). Secrets are generated here, never chosen. */
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
   * @throws FieldException (400, field `name`) when the name is not 1 to 128 characters without control
   *   characters, or only digits (`:tenant` references read digits as an id);
   *   ConflictException when the name is taken.
   * @param actor who creates it (recorded on the ledger).
   */
  async createTenant(name: string, actor?: Actor): Promise<CreatedTenant> {
    if (name.length < 1 || name.length > 128 || !NO_CONTROL.test(name) || /^\d+$/.test(name)) {
      throw new FieldException('name', 'name must be 1 to 128 characters without control characters, and not only digits');
    }
    try {
      const tenant = await this.unitOfWork.transaction(async (manager) => {
        const created = await this.tenants.insertTenant(manager, {
          name,
          customerKey: newCustomerKey(),
          createdAt: this.clock.now(),
          ddiPollingSeconds: DEFAULT_DDI_POLLING_SECONDS,
          artifactVerifyKey: null,
        });
        await this.ledger.append(manager, {
          tenantId: created.id,
          type: 'tenant.created',
          subject: Subject.tenant(created.id),
          actor,
          state: { id: created.id, name },
        });
        return created;
      });
      return { ...tenantView(tenant), customerKey: tenant.customerKey };
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(`Tenant "${name}" exists`);
      throw error;
    }
  }

  /** Tenants without their customer keys. */
  async listTenants(): Promise<TenantView[]> {
    return (await this.tenants.listTenants()).map(tenantView);
  }

  /** One page of tenants by id, without their customer keys. */
  async pageTenants(slice: Slice): Promise<Counted<TenantView>> {
    const [tenants, total] = await this.tenants.pageTenants(slice.offset, slice.limit);
    return { items: tenants.map(tenantView), total };
  }

  /**
   * One tenant by id or name, without its customer key.
   * @throws NotFoundException `Tenant "x" not found`.
   */
  async getTenant(idOrName: string | number): Promise<TenantView> {
    return tenantView(await this.resolveTenant(idOrName));
  }

  /**
   * Replaces a tenant's customer key with a fresh random one, shown only in the answer, and
   * records the rotation on the ledger (without the key). Devices must sign logins with the new
   * key from now on: a login signed with the old one is refused at once (docs/decisions.md §4, §5).
   * Device tokens issued before the rotation stay valid until they expire (`JWT_TTL_SECONDS`):
   * a token proves a login that was valid when it happened and is not derived from the customer
   * key, as with security tokens in Eclipse hawkBit. To cut devices off at once, revoke their
   * device key.
   * @throws NotFoundException `Tenant "x" not found`.
   * @param actor who rotates it (recorded on the ledger).
   */
  async rotateCustomerKey(idOrName: string | number, actor?: Actor): Promise<CreatedTenant> {
    const tenant = await this.resolveTenant(idOrName);
    const customerKey = newCustomerKey();
    await this.unitOfWork.transaction(async (manager) => {
      await this.tenants.setCustomerKey(manager, tenant.id, customerKey);
      await this.ledger.append(manager, {
        tenantId: tenant.id,
        type: 'tenant.customer-key-rotated',
        subject: Subject.tenant(tenant.id),
        actor,
        state: { id: tenant.id, name: tenant.name },
      });
    });
    return { ...tenantView(tenant), customerKey };
  }

  /**
   * Sets how often the tenant's hawkBit DDI devices poll (`config.polling.sleep`, docs/decisions.md
   * §12), from their next poll on; recorded on the ledger.
   * @throws FieldException (400, field `sleep`) for seconds outside {@link DDI_POLLING_SECONDS};
   *   NotFoundException `Tenant "x" not found`.
   */
  async setDdiPolling(idOrName: string | number, seconds: number, actor?: Actor): Promise<TenantView> {
    if (!Number.isSafeInteger(seconds) || seconds < DDI_POLLING_SECONDS.min || seconds > DDI_POLLING_SECONDS.max) {
      throw new FieldException('sleep', INVALID_POLLING_SLEEP);
    }
    const tenant = await this.resolveTenant(idOrName);
    await this.unitOfWork.transaction(async (manager) => {
      await this.tenants.setDdiPolling(manager, tenant.id, seconds);
      await this.ledger.append(manager, {
        tenantId: tenant.id,
        type: 'tenant.ddi-polling-set',
        subject: Subject.tenant(tenant.id),
        actor,
        state: { id: tenant.id, name: tenant.name, ddiPollingSeconds: seconds },
      });
    });
    return tenantView({ ...tenant, ddiPollingSeconds: seconds });
  }

  /**
   * Sets (PEM) or clears (`null`) the public key every Mender artifact the tenant publishes from
   * now on must be signed with (docs/decisions.md §13); recorded on the ledger with its fingerprint.
   * @throws FieldException {@link INVALID_ARTIFACT_VERIFY_KEY}; NotFoundException `Tenant "x" not found`.
   */
  async setArtifactVerifyKey(idOrName: string | number, pem: string | null, actor?: Actor): Promise<TenantView> {
    const key = pem === null ? null : readArtifactVerifyKey(pem);
    if (pem !== null && key === null) throw new FieldException('public_key', INVALID_ARTIFACT_VERIFY_KEY);
    const tenant = await this.resolveTenant(idOrName);
    const stored = key === null ? null : (key.export({ type: 'spki', format: 'pem' }) as string);
    const fingerprint = key === null ? null : keyFingerprint(key);
    await this.unitOfWork.transaction(async (manager) => {
      await this.tenants.setArtifactVerifyKey(manager, tenant.id, stored);
      await this.ledger.append(manager, {
        tenantId: tenant.id,
        type: 'tenant.artifact-verify-key-set',
        subject: Subject.tenant(tenant.id),
        actor,
        state: { id: tenant.id, name: tenant.name, artifactVerifyKeyFingerprint: fingerprint },
      });
    });
    return tenantView({ ...tenant, artifactVerifyKey: stored });
  }

  /**
   * Lets a device key accept Mender devices new to the tenant at once, or stops it
   * (docs/decisions.md §13); recorded on the ledger.
   * @throws NotFoundException when the key is not the tenant's.
   */
  async setAutoAccept(tenantId: number, keyOrId: string, autoAccept: boolean, actor?: Actor): Promise<DeviceKeyView> {
    const key = await this.requireDeviceKey(tenantId, keyOrId);
    if (key.autoAccept === autoAccept) return toView(key);
    await this.unitOfWork.transaction(async (manager) => {
      await this.tenants.setAutoAccept(manager, key.id, autoAccept);
      await this.ledger.append(manager, {
        tenantId,
        type: 'device-key.auto-accept-set',
        subject: Subject.deviceKey(key.id),
        actor,
        state: { id: key.id, deviceType: key.deviceType, autoAccept },
      });
    });
    return toView({ ...key, autoAccept });
  }

  /**
   * Makes a device key a hawkBit DDI gateway token, or stops it being one (docs/decisions.md §12);
   * recorded on the ledger. From the next request on, the key admits the tenant's DDI devices as
   * `Authorization: GatewayToken`, or no longer does.
   * @throws NotFoundException when the key is not the tenant's.
   */
  async setDdiGateway(tenantId: number, keyOrId: string, ddiGateway: boolean, actor?: Actor): Promise<DeviceKeyView> {
    const key = await this.requireDeviceKey(tenantId, keyOrId);
    if (key.ddiGateway === ddiGateway) return toView(key);
    await this.unitOfWork.transaction(async (manager) => {
      await this.tenants.setDdiGateway(manager, key.id, ddiGateway);
      await this.ledger.append(manager, {
        tenantId,
        type: 'device-key.ddi-gateway-set',
        subject: Subject.deviceKey(key.id),
        actor,
        state: { id: key.id, deviceType: key.deviceType, ddiGateway },
      });
    });
    return toView({ ...key, ddiGateway });
  }

  /** The tenant with exactly this name, or `null` (a DDI path names its tenant so, docs/decisions.md §12). */
  tenantNamed(name: string): Promise<Tenant | null> {
    return this.tenants.pollTenantByName(name);
  }

  /**
   * The tenant's device key with this text if it is a DDI gateway token: flagged `ddi_gateway` and
   * not revoked (docs/decisions.md §12); `null` otherwise, also for another tenant's key and for
   * a key that is only an asvin device key or a Mender tenant token.
   */
  async gatewayKey(tenantId: number, key: string): Promise<DeviceKey | null> {
    const found = await this.tenants.findDeviceKeyByKey(key);
    return found && found.tenantId === tenantId && found.revokedAt === null && found.ddiGateway ? found : null;
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

  /**
   * Creates a device key for devices of one type (`dType`, e.g. `ESP32`): {@link newDeviceKey}.
   * @throws FieldException (400, field `device_type`) when the type is not 1 to 64 printable characters.
   * @param actor who creates it (recorded on the ledger).
   * @param options.singleDevice the key belongs to one device: each `(device key, timestamp)` is
   *   accepted once; otherwise (the default) devices sharing the key may send byte-identical logins.
   * @param options.autoAccept Mender devices new to the tenant that authenticate with it are
   *   accepted at once (docs/decisions.md §13); by default they wait, pending, for an operator.
   * @param options.ddiGateway the key is a hawkBit DDI gateway token for the tenant's DDI devices
   *   (docs/decisions.md §12); by default it is not.
   */
  async createDeviceKey(
    tenantId: number,
    deviceType: string,
    actor?: Actor,
    options: { singleDevice?: boolean; autoAccept?: boolean; ddiGateway?: boolean } = {},
  ): Promise<DeviceKeyView> {
    const singleDevice = options.singleDevice ?? false;
    const autoAccept = options.autoAccept ?? false;
    const ddiGateway = options.ddiGateway ?? false;
    if (deviceType.length < 1 || deviceType.length > 64 || !NO_CONTROL.test(deviceType)) {
      throw new FieldException('device_type', 'device_type must be 1 to 64 printable characters, e.g. ESP32');
    }
    const key = await this.unitOfWork.transaction(async (manager) => {
      const created = await this.tenants.insertDeviceKey(manager, {
        tenantId,
        key: newDeviceKey(),
        deviceType,
        singleDevice,
        autoAccept,
        ddiGateway,
        revokedAt: null,
        createdAt: this.clock.now(),
      });
      await this.ledger.append(manager, {
        tenantId,
        type: 'device-key.created',
        subject: Subject.deviceKey(created.id),
        actor,
        state: {
          id: created.id,
          deviceType,
          singleDevice,
          ...(autoAccept ? { autoAccept } : {}),
          ...(ddiGateway ? { ddiGateway } : {}),
          revoked: false,
        },
      });
      return created;
    });
    return toView(key);
  }

  /**
   * Revokes a device key: its logins and its tokens stop working at once.
   * @throws NotFoundException when the key is not the tenant's.
   * @param actor who revokes it (recorded on the ledger).
   */
  async revokeDeviceKey(tenantId: number, keyOrId: string, actor?: Actor): Promise<DeviceKeyView> {
    const key = await this.requireDeviceKey(tenantId, keyOrId);
    if (key.revokedAt !== null) return toView(key);
    const at = this.clock.now();
    await this.unitOfWork.transaction(async (manager) => {
      await this.tenants.revokeDeviceKey(manager, key.id, at);
      await this.ledger.append(manager, {
        tenantId,
        type: 'device-key.revoked',
        subject: Subject.deviceKey(key.id),
        actor,
        state: { id: key.id, deviceType: key.deviceType, revoked: true },
      });
    });
    return toView({ ...key, revokedAt: at });
  }

  /**
   * The tenant's device key by id or key text.
   * @throws NotFoundException `Device key "x" not found`, also for another tenant's key.
   */
  private async requireDeviceKey(tenantId: number, keyOrId: string): Promise<DeviceKey> {
    const key = /^\d+$/.test(keyOrId) ? await this.tenants.findDeviceKey(Number(keyOrId)) : await this.tenants.findDeviceKeyByKey(keyOrId);
    if (!key || key.tenantId !== tenantId) throw new NotFoundException(`Device key "${keyOrId}" not found`);
    return key;
  }

  async listDeviceKeys(tenantId: number): Promise<DeviceKeyView[]> {
    return (await this.tenants.listDeviceKeys(tenantId)).map(toView);
  }

  /** One page of a tenant's device keys by id (revoked ones included). */
  async pageDeviceKeys(tenantId: number, slice: Slice): Promise<Counted<DeviceKeyView>> {
    const [keys, total] = await this.tenants.pageDeviceKeys(tenantId, slice.offset, slice.limit);
    return { items: keys.map(toView), total };
  }
}

/** Letters and digits: a device key is typed into sketches and shells as it is. */
const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Characters of a new device key: 22 × log2(62) ≈ 131 bits of randomness. */
export const DEVICE_KEY_LENGTH = 22;

/**
 * A new device key: {@link DEVICE_KEY_LENGTH} characters drawn uniformly (crypto `randomInt`)
 * from {@link KEY_ALPHABET}, about 131 bits. At most 31 characters because the ESP8266 SDK
 * signs `timestamp + device key` in a fixed 42-byte buffer (docs/decisions.md §5).
 */
export function newDeviceKey(): string {
  let key = '';
  for (let i = 0; i < DEVICE_KEY_LENGTH; i++) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return key;
}

/** 24 random bytes, base64url: the HMAC key of device signatures (docs/decisions.md §1). */
function newCustomerKey(): string {
  return randomBytes(24).toString('base64url');
}

function tenantView(tenant: Tenant): TenantView {
  return {
    id: tenant.id,
    name: tenant.name,
    createdAt: new Date(tenant.createdAt).toISOString(),
    ddiPollingSeconds: tenant.ddiPollingSeconds,
    artifactVerifyKeyFingerprint: tenant.artifactVerifyKey === null ? null : fingerprintOf(tenant.artifactVerifyKey),
  };
}

/** The fingerprint of a stored verification key (`null` should it no longer read). */
function fingerprintOf(pem: string): string | null {
  const key = readArtifactVerifyKey(pem);
  return key === null ? null : keyFingerprint(key);
}

function toView(key: DeviceKey): DeviceKeyView {
  return {
    id: key.id,
    tenantId: key.tenantId,
    key: key.key,
    deviceType: key.deviceType,
    singleDevice: key.singleDevice,
    autoAccept: key.autoAccept,
    ddiGateway: key.ddiGateway,
    revoked: key.revokedAt !== null,
    createdAt: new Date(key.createdAt).toISOString(),
  };
}
