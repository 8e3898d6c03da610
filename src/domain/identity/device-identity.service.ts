import { BadRequestException, ConflictException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { createHmac, createSecretKey, randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import { canonicalMac, INVALID_MAC } from '#src/platform/common/mac.js';
import type { Counted, Slice } from '#src/platform/common/paging.js';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { errorMessage } from '#src/platform/logging/error-message.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import type { DeviceKey } from '#src/domain/tenant/device-key.entity.js';
import { TenantRepository } from '#src/domain/tenant/tenant.repository.js';
import type { Device } from '#src/domain/device/device.entity.js';
import { DeviceService } from '#src/domain/device/device.service.js';
import type { AuthSetStatus, DeviceAuthSet } from './device-auth-set.entity.js';
import { DeviceAuthRepository, type AuthSetWithKey } from './device-auth.repository.js';
import {
  INVALID_PUBLIC_KEY,
  isPrivateKeyPem,
  PRIVATE_KEY_SENT,
  readDevicePublicKey,
  verifiesDeviceSignature,
  type DevicePublicKey,
} from './device-public-key.js';
import { canonicalIdentityData, identityIdentifier, INVALID_ID_DATA, parseIdentityData, type IdentityData } from './identity-data.js';

/** What a device presents to authenticate (Mender `auth_requests`, docs/decisions.md §13), read from the wire by its adapter. */
export interface IdentityClaim {
  /** `id_data`: the identity as JSON text. */
  idData: string;
  /** `pubkey`: the device's public key, PEM. */
  publicKey: string;
  /** `tenant_token`: a device key of the tenant (`''` when the device sent none). */
  tenantToken: string;
  /** The exact bytes the device signed: the request body as received. */
  message: Buffer;
  /** The signature of {@link message} (`X-MEN-Signature`, decoded), `null` when absent or not base64. */
  signature: Buffer | null;
}

/** How an authentication ended: a token for an accepted device, or a refusal (answered 401; `reason` goes to the log only). */
export type AuthOutcome = { admitted: true; token: string; device: Device } | { admitted: false; reason: string };

/** A device a valid device-identity token names. */
export interface IdentifiedDevice {
  tenantId: number;
  device: Device;
  authSetId: number;
}

/** An auth set as operators see it. */
export interface AuthSetView {
  id: number;
  /** The device's identifier: its mac, or `mender-` and a digest of its identity. */
  identifier: string;
  /** The identity, as the device (or the preauthorization) gave it. */
  idData: IdentityData;
  /** Lowercase hex SHA-256 of the key's DER SubjectPublicKeyInfo. */
  fingerprint: string;
  /** `rsa`, `ec` or `ed25519`. */
  keyType: string;
  /** The key, PEM. */
  publicKey: string;
  status: AuthSetStatus;
  /** The device type of the device key its tenant token named; `null` before the device was seen. */
  deviceType: string | null;
  /** Id of that device key; `null` before the device was seen. */
  deviceKeyId: number | null;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC of its last change. */
  updatedAt: string;
}

/** What an operator gives to preauthorize a device. */
export interface Preauthorization {
  tenantId: number;
  /** Its mac (any notation): its identity is then `{"mac": "<canonical mac>"}`. */
  mac?: string;
  /** Or its whole identity, as its identity script prints it (a JSON object of strings or lists of strings). */
  idData?: unknown;
  /** Its public key, PEM. */
  publicKey: string;
  actor?: Actor;
}

/** 404 text of an auth set the tenant does not have. */
export const authSetNotFound = (id: string | number): string => `Auth set ${id} not found`;

/** 404 text of a device identifier the tenant has no auth set of. */
export const identityNotFound = (identifier: string): string => `No device identity "${identifier}"`;

/** 409 text of preauthorizing a key the device already authenticates with. */
export const alreadyAccepted = (identifier: string): string => `Device "${identifier}" already authenticates with this key`;

/** Claims of a device-identity token. */
interface IdentityClaims {
  /** `auth-set:<id>`. */
  sub: string;
  /** Tenant id. */
  tid: number;
  iat: number;
  exp: number;
  jti: string;
}

/** What the token's signing key is derived from the JWT secret with: a device-identity token is never an asvin device token. */
const TOKEN_KEY_LABEL = 'firmledger device identity token';

/**
 * Device identities that authenticate with a public key: Mender devices (docs/decisions.md §13).
 * A device asks to be admitted with its identity, its key, a signature over its request and a
 * tenant token (one of the tenant's device keys, whose tenant and device type apply); an unknown
 * device waits `pending` until an operator accepts it, unless it was preauthorized or its device
 * key accepts new devices at once. An accepted device gets a token (HS256, `JWT_TTL_SECONDS`)
 * and is a `mender` device of the tenant. Every decision (accepted, rejected, preauthorized,
 * decommissioned) is recorded on the ledger; a pending request is not.
 */
@Injectable()
export class DeviceIdentityService {
  private readonly logger = new Logger('DeviceIdentity');
  private readonly jwt: JwtService;

  constructor(
    private readonly sets: DeviceAuthRepository,
    private readonly keys: TenantRepository,
    private readonly devices: DeviceService,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const secret = createSecretKey(createHmac('sha256', config.jwtSecret).update(TOKEN_KEY_LABEL).digest());
    this.jwt = new JwtService({ secret, signOptions: { algorithm: 'HS256' }, verifyOptions: { algorithms: ['HS256'] } });
  }

  /**
   * A device asks to be admitted (docs/decisions.md §13). In this order: its identity and key must
   * be ones ({@link INVALID_ID_DATA}, {@link INVALID_PUBLIC_KEY}, {@link PRIVATE_KEY_SENT}: 400); the signature must verify
   * over the exact request bytes and the tenant token must be a device key of a tenant, not revoked
   * (else refused); then its auth set (identity and key) decides:
   * - unknown: recorded `pending` and refused, or `accepted` at once when its device key accepts
   *   new devices and the identity has no accepted key yet;
   * - `preauthorized`: accepted now (its identity as the device sends it, the key's type);
   * - `accepted`: admitted again (the client does before every commit);
   * - `pending`, `rejected`, `decommissioned`: refused.
   * An admitted device is registered as a `mender` device of the tenant token's key and type.
   * @throws BadRequestException for an identity or key that is not one.
   */
  async authenticate(claim: IdentityClaim): Promise<AuthOutcome> {
    const identity = parseIdentityData(claim.idData);
    if (identity === null) throw new BadRequestException(INVALID_ID_DATA);
    const publicKey = readDevicePublicKey(claim.publicKey);
    if (publicKey === null) throw new BadRequestException(isPrivateKeyPem(claim.publicKey) ? PRIVATE_KEY_SENT : INVALID_PUBLIC_KEY);
    if (claim.signature === null || !verifiesDeviceSignature(publicKey, claim.message, claim.signature)) {
      return { admitted: false, reason: 'the signature does not verify with the key in the request' };
    }
    const key = claim.tenantToken === '' ? null : await this.keys.findDeviceKeyByKey(claim.tenantToken);
    if (key === null || key.revokedAt !== null) {
      return { admitted: false, reason: claim.tenantToken === '' ? 'no tenant token' : 'the tenant token is no valid device key' };
    }
    const identifier = identityIdentifier(identity);
    const set = await this.admissionOf(key, identifier, canonicalIdentityData(identity), publicKey);
    if (set.status !== 'accepted') return { admitted: false, reason: `device ${identifier} is ${set.status}` };
    let device: Device;
    try {
      device = await this.devices.registerIdentified(
        { tenantId: key.tenantId, deviceKeyId: key.id, deviceType: key.deviceType },
        identifier,
      );
    } catch (error) {
      if (error instanceof ConflictException) return { admitted: false, reason: errorMessage(error) };
      throw error;
    }
    return { admitted: true, token: this.issue(set.id, key.tenantId), device };
  }

  /**
   * The device a token names, while its auth set is accepted and its device key not revoked;
   * `null` for anything else (malformed, bad signature, expired, rejected, decommissioned, device gone).
   */
  async verifyToken(token: string): Promise<IdentifiedDevice | null> {
    let claims: IdentityClaims;
    try {
      claims = this.jwt.verify<IdentityClaims>(token, { clockTimestamp: Math.floor(this.clock.now() / 1000) });
    } catch {
      return null;
    }
    const id = /^auth-set:(\d{1,15})$/.exec(String(claims.sub))?.[1];
    if (id === undefined || typeof claims.tid !== 'number') return null;
    const set = await this.sets.withKey(claims.tid, Number(id));
    if (!set || set.status !== 'accepted' || set.keyRevoked) return null;
    const device = await this.devices.find(set.tenantId, set.identifier);
    if (!device || device.protocol !== 'mender') return null;
    return { tenantId: set.tenantId, device, authSetId: set.id };
  }

  /** One page of the tenant's auth sets in `statuses` (all when empty), newest first. */
  async page(tenantId: number, statuses: readonly AuthSetStatus[], slice: Slice): Promise<Counted<AuthSetView>> {
    const [sets, total] = await this.sets.page(tenantId, statuses, slice.offset, slice.limit);
    return { items: sets.map(authSetView), total };
  }

  /** Every auth set of the tenant's device identifier, oldest first (`[]` when none). */
  async setsOf(tenantId: number, identifier: string): Promise<AuthSetView[]> {
    const sets = await this.sets.ofIdentifier(tenantId, identifier);
    return Promise.all(sets.map((set) => this.view(tenantId, set.id)));
  }

  /**
   * An operator accepts an auth set: the device may authenticate with its key from now on; another
   * key the identity was accepted with is rejected (one accepted key per device). A device whose
   * tenant token is known is registered at once. Accepting an accepted set changes nothing.
   * @throws NotFoundException {@link authSetNotFound}; ConflictException when the identifier
   *   names a device of another protocol.
   */
  async accept(tenantId: number, id: number, actor?: Actor): Promise<AuthSetView> {
    const set = await this.require(tenantId, id);
    if (set.status === 'accepted') return authSetView(set);
    const key = set.deviceKeyId === null ? null : await this.keys.findDeviceKey(set.deviceKeyId);
    if (key && key.revokedAt === null) {
      await this.devices.registerIdentified({ tenantId, deviceKeyId: key.id, deviceType: key.deviceType }, set.identifier, actor);
    }
    await this.unitOfWork.transaction(async (manager) => {
      await this.move(manager, set, 'accepted', actor);
      await this.rejectOthers(manager, set, actor);
    });
    return this.view(tenantId, id);
  }

  /**
   * An operator rejects an auth set: the device is refused with that key, and a token it holds
   * stops working at once.
   * @throws NotFoundException {@link authSetNotFound}.
   */
  async reject(tenantId: number, id: number, actor?: Actor): Promise<AuthSetView> {
    const set = await this.require(tenantId, id);
    if (set.status !== 'rejected') await this.unitOfWork.transaction((manager) => this.move(manager, set, 'rejected', actor));
    return this.view(tenantId, id);
  }

  /**
   * An operator admits a device's identity and key beforehand: it is accepted on its first
   * request (docs/decisions.md §13). The key of an identity that is pending, rejected or
   * decommissioned becomes preauthorized.
   * @throws BadRequestException for an identity (neither or both of mac and id_data, a mac that is
   *   no hardware address, id_data that is no identity) or a key that is not one; ConflictException
   *   {@link alreadyAccepted} when the device already authenticates with the key.
   */
  async preauthorize(request: Preauthorization): Promise<AuthSetView> {
    const identity = preauthorizedIdentity(request);
    const publicKey = readDevicePublicKey(request.publicKey);
    if (publicKey === null) {
      const message = isPrivateKeyPem(request.publicKey) ? PRIVATE_KEY_SENT : INVALID_PUBLIC_KEY;
      throw new BadRequestException(message.replace(/^pubkey/, 'public_key'));
    }
    const identifier = identityIdentifier(identity);
    const idData = canonicalIdentityData(identity);
    const now = this.clock.now();
    try {
      const id = await this.unitOfWork.transaction(async (manager) => {
        const found = await this.sets.find(request.tenantId, identifier, publicKey.fingerprint, manager);
        if (found?.status === 'accepted') throw new ConflictException(alreadyAccepted(identifier));
        if (found) {
          await this.sets.update(manager, found.id, { idData });
          await this.move(manager, { ...found, idData }, 'preauthorized', request.actor);
          return found.id;
        }
        const created = await this.sets.insert(manager, {
          tenantId: request.tenantId,
          identifier,
          idData,
          publicKey: publicKey.pem,
          fingerprint: publicKey.fingerprint,
          status: 'preauthorized',
          deviceKeyId: null,
          createdAt: now,
          updatedAt: now,
        });
        await this.record(manager, created, request.actor);
        return created.id;
      });
      return await this.view(request.tenantId, id);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(alreadyAccepted(identifier));
      throw error;
    }
  }

  /**
   * An operator takes a device out of service: every auth set of its identifier becomes
   * `decommissioned`; it is refused (and its token stops working) until one is accepted again.
   * The device and its history stay.
   * @returns its auth sets, oldest first.
   * @throws NotFoundException {@link identityNotFound} when the tenant has no auth set of the identifier.
   */
  async decommission(tenantId: number, identifier: string, actor?: Actor): Promise<AuthSetView[]> {
    const ids = await this.unitOfWork.transaction(async (manager) => {
      const sets = await this.sets.ofIdentifier(tenantId, identifier, manager);
      if (sets.length === 0) throw new NotFoundException(identityNotFound(identifier));
      for (const set of sets) if (set.status !== 'decommissioned') await this.move(manager, set, 'decommissioned', actor);
      return sets.map((s) => s.id);
    });
    return Promise.all(ids.map((id) => this.view(tenantId, id)));
  }

  /**
   * The auth set of the identity and key after this request: created when new (`pending`, or
   * `accepted` when the device key accepts new devices and the identity has no accepted key),
   * accepted when preauthorized, its identity and device key brought up to date when accepted.
   */
  private async admissionOf(key: DeviceKey, identifier: string, idData: string, publicKey: DevicePublicKey): Promise<DeviceAuthSet> {
    const now = this.clock.now();
    try {
      return await this.unitOfWork.transaction(async (manager) => {
        const found = await this.sets.find(key.tenantId, identifier, publicKey.fingerprint, manager);
        if (found === null) {
          const others = await this.sets.ofIdentifier(key.tenantId, identifier, manager);
          const auto = key.autoAccept && !others.some((s) => s.status === 'accepted');
          const created = await this.sets.insert(manager, {
            tenantId: key.tenantId,
            identifier,
            idData,
            publicKey: publicKey.pem,
            fingerprint: publicKey.fingerprint,
            status: auto ? 'accepted' : 'pending',
            deviceKeyId: key.id,
            createdAt: now,
            updatedAt: now,
          });
          // A request is no decision: only an automatic acceptance is recorded on the ledger (a
          // holder of a tenant token cannot fill the ledger with pending requests).
          if (auto) await this.record(manager, created);
          if (!auto)
            this.logger.log(`device ${identifier} of tenant ${key.tenantId} is pending (key ${publicKey.fingerprint.slice(0, 16)}…)`);
          return created;
        }
        if (found.status === 'preauthorized') {
          const accepted = { ...found, idData, deviceKeyId: key.id };
          await this.sets.update(manager, found.id, { idData, deviceKeyId: key.id });
          await this.move(manager, accepted, 'accepted');
          await this.rejectOthers(manager, accepted);
          return { ...accepted, status: 'accepted' };
        }
        if (found.status === 'accepted' && (found.idData !== idData || found.deviceKeyId !== key.id)) {
          await this.sets.update(manager, found.id, { idData, deviceKeyId: key.id, updatedAt: now });
          return { ...found, idData, deviceKeyId: key.id };
        }
        return found;
      });
    } catch (error) {
      // Two first requests of one device at once: the other one created it.
      if (!isUniqueViolation(error)) throw error;
      return (await this.sets.find(key.tenantId, identifier, publicKey.fingerprint))!;
    }
  }

  /** Moves an auth set to `status`, with its ledger entry. */
  private async move(manager: EntityManager, set: DeviceAuthSet, status: AuthSetStatus, actor?: Actor): Promise<void> {
    await this.sets.update(manager, set.id, { status, updatedAt: this.clock.now() });
    await this.record(manager, { ...set, status }, actor);
  }

  /** Rejects the identity's other accepted auth sets: a device authenticates with one key at a time. */
  private async rejectOthers(manager: EntityManager, accepted: DeviceAuthSet, actor?: Actor): Promise<void> {
    for (const other of await this.sets.ofIdentifier(accepted.tenantId, accepted.identifier, manager)) {
      if (other.id !== accepted.id && other.status === 'accepted') await this.move(manager, other, 'rejected', actor);
    }
  }

  private async record(manager: EntityManager, set: DeviceAuthSet, actor?: Actor): Promise<void> {
    await this.ledger.append(manager, {
      tenantId: set.tenantId,
      type: `device.auth-set-${set.status}`,
      subject: Subject.device(set.identifier),
      actor,
      state: { authSet: set.id, identifier: set.identifier, idData: JSON.parse(set.idData) as unknown, fingerprint: set.fingerprint },
    });
  }

  private issue(authSetId: number, tenantId: number): string {
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: IdentityClaims = {
      sub: `auth-set:${authSetId}`,
      tid: tenantId,
      iat,
      exp: iat + this.config.jwtTtlSeconds,
      jti: randomUUID(),
    };
    return this.jwt.sign(claims);
  }

  private async require(tenantId: number, id: number): Promise<AuthSetWithKey> {
    const set = await this.sets.withKey(tenantId, id);
    if (!set) throw new NotFoundException(authSetNotFound(id));
    return set;
  }

  private async view(tenantId: number, id: number): Promise<AuthSetView> {
    return authSetView(await this.require(tenantId, id));
  }
}

/** 400 text of a preauthorization without exactly one of mac and id_data. */
export const ONE_IDENTITY = 'give the device’s identity as mac or as id_data (not both)';

/** The identity a preauthorization names. @throws BadRequestException */
function preauthorizedIdentity(request: Pick<Preauthorization, 'mac' | 'idData'>): IdentityData {
  if ((request.mac === undefined) === (request.idData === undefined)) throw new BadRequestException(ONE_IDENTITY);
  if (request.mac !== undefined) {
    const mac = canonicalMac(request.mac);
    if (mac === null) throw new BadRequestException(INVALID_MAC);
    return { mac };
  }
  const identity = parseIdentityData(JSON.stringify(request.idData));
  if (identity === null) throw new BadRequestException(INVALID_ID_DATA);
  return identity;
}

/** The operator view of an auth set. */
function authSetView(set: AuthSetWithKey): AuthSetView {
  return {
    id: set.id,
    identifier: set.identifier,
    idData: JSON.parse(set.idData) as IdentityData,
    fingerprint: set.fingerprint,
    keyType: readDevicePublicKey(set.publicKey)?.type ?? 'unknown',
    publicKey: set.publicKey,
    status: set.status,
    deviceType: set.deviceType,
    deviceKeyId: set.deviceKeyId,
    createdAt: new Date(set.createdAt).toISOString(),
    updatedAt: new Date(set.updatedAt).toISOString(),
  };
}
