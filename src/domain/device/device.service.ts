import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { NO_CONTROL } from '#src/platform/common/dto-fields.js';
import { canonicalIdentifier, INVALID_CONTROLLER_ID } from '#src/platform/common/device-identifier.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { Clock } from '#src/platform/common/clock.js';
import type { CursorCounted, KeysetSlice } from '#src/platform/common/paging.js';
import { isUniqueViolation } from '#src/platform/common/unique-violation.js';
import { isStorableText, isStoredId } from '#src/platform/common/input-rules.js';
import type { DeviceKeyScope } from '#src/domain/tenant/device-key-scope.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import type { Device, DeviceProtocol, DeviceVersion } from './device.entity.js';
import type { MessageResponse } from '#src/platform/common/dto/message.dto.js';
import { DeviceRepository, type DeviceFilter, type NewDeviceRow, type FleetCounts } from './device.repository.js';
import { DeviceVersionReports } from './device-version-reports.js';
import { DeviceChanges } from './device-changes.js';
import { LastSeenWriter } from './last-seen-writer.js';

/** Exact outcome texts (docs/device-interface.md; `does't` is spelled as the field devices expect). */
export const DeviceMessages = {
  inserted: 'Device inserted!',
  exists: 'Device exists!',
  deleted: 'Device deleted!',
  absent: "Device does't exist!",
} as const;

/** Devices per page of {@link DeviceService.pages} (the streamed reports). */
const REPORT_PAGE_ROWS = 200;

/** A device as operators see it (docs/decisions.md §9, §11). */
export interface DeviceView {
  /** Its identifier: a canonical mac, or a controller id (docs/decisions.md §11). */
  mac: string;
  /** The device protocol it speaks. */
  protocol: DeviceProtocol;
  /** Whether it has a target token (a DDI device's own credential). */
  hasTargetToken: boolean;
  /** What it reported about itself (DDI `configData`), `null` before it reported anything. */
  attributes: Record<string, string> | null;
  name: string;
  firmwareVersion: string;
  /** `dType`: the type of the key it registered with. */
  deviceType: string;
  /** ISO 8601 UTC of its last request that named it (register, next rollout, success), or `null`. */
  lastSeenAt: string | null;
  /** ISO 8601 UTC of its registration. */
  createdAt: string;
}

/** What a device says about itself when it registers (docs/decisions.md §6). */
export interface DeviceRegistration {
  /** Canonical mac. */
  mac: string;
  /** 1 to 128 characters; the mac when absent. */
  name?: string;
  /** What it runs now, 1 to 64 printable characters. */
  firmwareVersion: string;
}

/** What an operator gives to create a device that authenticates with its own target token (docs/decisions.md §11). */
export interface NewDevice {
  tenantId: number;
  /** Its controller id (or a hardware address, which is canonicalized). */
  controllerId: string;
  /** Its device type (`dType`): which firmware it is offered. 1 to 64 printable characters. */
  deviceType: string;
  /** 1 to 128 characters; the identifier when absent. */
  name?: string;
  /** The version it runs, if known (1 to 64 printable characters); `''` (none reported yet) when absent. */
  firmwareVersion?: string;
  /**
   * The target token to keep (a fleet moved from a hawkBit server keeps its tokens: 1 to 128
   * printable characters without spaces); a new random one when absent.
   */
  targetToken?: string;
  /** Who creates it (recorded on the ledger). */
  actor?: Actor;
}

/** A device just created, or whose target token was just replaced: the only times the token is shown. */
export interface DeviceWithToken {
  device: DeviceView;
  /** The target token, in clear, shown once (only its SHA-256 is kept). */
  targetToken: string;
}

/** 409 text of creating a device whose identifier the tenant has. */
export const deviceExists = (identifier: string): string => `Device "${identifier}" exists`;

/** 409 text of admitting a Mender device whose identifier names a device of another protocol (docs/decisions.md §13). */
export const deviceSpeaksOther = (identifier: string, protocol: DeviceProtocol): string =>
  `Device "${identifier}" exists and speaks ${protocol}`;

/** 400 text of a target token that cannot be one. */
export const INVALID_TARGET_TOKEN = 'target_token must be 1 to 128 printable characters without spaces';

/** Most attributes a device may keep (hawkBit's default quota of controller attributes). */
export const MAX_ATTRIBUTES = 100;

/** How reported attributes change the kept ones (hawkBit `DdiUpdateMode`; absent: `merge`). */
export type AttributesMode = 'merge' | 'replace' | 'remove';

/** Devices of a tenant (docs/decisions.md §6, §11); every change is recorded on the ledger. */
/**
 * The ledger entry types about a device whose state is the device's record (mac, name, firmware
 * version, device type): what the blockchain lookup answers (docs/decisions.md §7). A device's
 * other entries (labels, reported attributes, Mender auth sets) record something else.
 */
export const DEVICE_RECORD_ENTRIES = [
  'device.registered',
  'device.created',
  'device.updated',
  'device.target-token-rotated',
  'device.deleted',
] as const;
export type DeviceRecordEntry = (typeof DEVICE_RECORD_ENTRIES)[number];

@Injectable()
export class DeviceService {
  constructor(
    private readonly devices: DeviceRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
    private readonly lastSeen: LastSeenWriter,
    private readonly versionReports: DeviceVersionReports,
    private readonly changes: DeviceChanges,
  ) {}

  /**
   * Registers a device under the key's tenant and device key (its type becomes `dType`).
   * An existing mac answers `Device exists!` and leaves the record unchanged, also when two
   * registrations race (the unique constraint decides); the version it reports is passed to
   * {@link DeviceVersionReports} (a rollout's confirmation).
   */
  async register(principal: DeviceKeyScope, dto: DeviceRegistration): Promise<MessageResponse> {
    try {
      await this.unitOfWork.transaction(async (manager) => {
        if (await this.devices.findByMac(principal.tenantId, dto.mac, manager)) throw new DeviceExists();
        const now = this.clock.now();
        const device = await this.devices.insert(manager, {
          tenantId: principal.tenantId,
          mac: dto.mac,
          name: dto.name ?? dto.mac,
          firmwareVersion: dto.firmwareVersion,
          deviceKeyId: principal.deviceKeyId,
          deviceType: principal.deviceType,
          lastSeenAt: now,
          createdAt: now,
          protocol: 'asvin',
          targetTokenHash: null,
          attributes: null,
        });
        await this.record(manager, device, 'device.registered');
      });
      await this.changes.changed(principal.tenantId, [dto.mac]);
      return { message: DeviceMessages.inserted };
    } catch (error) {
      if (!(error instanceof DeviceExists || isUniqueViolation(error))) throw error;
      await this.versionReports.reported(principal.tenantId, dto.mac, dto.firmwareVersion);
      return { message: DeviceMessages.exists };
    }
  }

  /**
   * Deletes a device of the tenant.
   * @throws NotFoundException `Device does't exist!`
   */
  async delete(tenantId: number, mac: string): Promise<MessageResponse> {
    await this.unitOfWork.transaction(async (manager) => {
      const device = await this.devices.findByMac(tenantId, mac, manager);
      if (!device) throw new NotFoundException(DeviceMessages.absent);
      await this.devices.delete(manager, device.id);
      await this.record(manager, device, 'device.deleted');
    });
    await this.changes.changed(tenantId, [mac]);
    return { message: DeviceMessages.deleted };
  }

  /**
   * One device of the tenant.
   * @throws NotFoundException `Device does't exist!` (also for another tenant's device).
   */
  get(tenantId: number, mac: string): Promise<Device> {
    return this.require(tenantId, mac);
  }

  /** All devices of the tenant that speak `protocol`, by identifier, `[]` when none. */
  list(tenantId: number, protocol: DeviceProtocol): Promise<Device[]> {
    return this.devices.list(tenantId, protocol);
  }

  /**
   * One page of the tenant's devices matching `filter`, by mac (operator view, docs/decisions.md §9).
   * Last-seen times this instance still holds back are written first, so the page and the
   * `seen_since` filter see them. `slice.after` pages by cursor (the identifier of the previous
   * page's last device); `next` is the cursor of the page after this one (`null`: none follows),
   * whether this page was asked for by offset or by cursor.
   */
  async page(tenantId: number, filter: DeviceFilter, slice: KeysetSlice): Promise<CursorCounted<DeviceView>> {
    await this.lastSeen.flush();
    // One row more than the page: whether a page follows, without counting past the cursor.
    const [devices, total] = await this.devices.page(tenantId, filter, slice.offset, slice.limit + 1, slice.after);
    const items = devices.slice(0, slice.limit);
    const next = devices.length > slice.limit ? items[items.length - 1].mac : null;
    return { items: items.map(deviceView), total, next };
  }

  /**
   * The tenant's devices per firmware version and device type, and how many were seen in the
   * last hour and day before `now` (epoch ms), last-seen times held back written first (see {@link page}).
   */
  async fleetCounts(tenantId: number, now: number): Promise<FleetCounts> {
    await this.lastSeen.flush();
    return this.devices.fleetCounts(tenantId, now - 3_600_000, now - 86_400_000);
  }

  /**
   * All devices of the tenant in the order of {@link list}, a page of `pageSize` at a time (one
   * query each). Pages are read as the consumer asks for them, so they are not one snapshot: a
   * device registered or deleted meanwhile may or may not appear. The default page is small on
   * purpose: with 1,000 rows a page, the xml report of 100,000 devices grew the server's memory by
   * 14 to 46 MiB (the young generation grows with what survives each scavenge), with 200 by 11 to
   * 23 MiB, in the same time (bench/RESULTS.md).
   */
  async *pages(
    tenantId: number,
    protocol: DeviceProtocol,
    pageSize = REPORT_PAGE_ROWS,
  ): AsyncGenerator<Pick<Device, 'mac' | 'name' | 'firmwareVersion'>[]> {
    for (let after = ''; ;) {
      const page = await this.devices.pageAfter(tenantId, after, pageSize, protocol);
      if (page.length > 0) yield page;
      if (page.length < pageSize) return;
      after = page[page.length - 1].mac;
    }
  }

  /** The tenant's device as operators see it, last-seen time up to date (see {@link page}); `null` when absent. */
  async describe(tenantId: number, mac: string): Promise<Device | null> {
    await this.lastSeen.flush();
    return this.find(tenantId, mac);
  }

  /** The tenant's device, or `null` when absent. */
  find(tenantId: number, mac: string, manager?: EntityManager): Promise<Device | null> {
    return this.devices.findByMac(tenantId, mac, manager);
  }

  /** The tenant's device with this id, or `null` (also for another tenant's, or an id no row can have). */
  async findById(tenantId: number, id: number): Promise<Device | null> {
    if (!isStoredId(id)) return null;
    const device = await this.devices.findById(id);
    return device !== null && device.tenantId === tenantId ? device : null;
  }

  /**
   * The tenant's device, for other modules.
   * @throws NotFoundException `Device does't exist!`
   */
  async require(tenantId: number, mac: string, manager?: EntityManager): Promise<Device> {
    const device = await this.find(tenantId, mac, manager);
    if (!device) throw new NotFoundException(DeviceMessages.absent);
    return device;
  }

  /**
   * Records what a device reports it runs now and when it was seen (docs/decisions.md §6). A changed
   * version is written, with its ledger entry and the last-seen time, in one transaction
   * (`manager`, or a new one) before this resolves; an unchanged one only records the last-seen
   * time, which {@link LastSeenWriter} writes within a second. `device` is the id and the version
   * read before; the ledger entry records the device as read in the transaction.
   * A changed version is told to {@link DeviceChanges} (dynamic groups, docs/decisions.md §10.3)
   * after the commit; with `manager`, the caller does that after its transaction ({@link devicesChanged}).
   * @throws NotFoundException `Device does't exist!` when the version changed and the device was
   *   deleted meanwhile (nothing is written).
   */
  async reportVersion(device: DeviceVersion, firmwareVersion: string, manager?: EntityManager): Promise<void> {
    const now = this.clock.now();
    if (device.firmwareVersion === firmwareVersion) {
      this.lastSeen.seen(device.id, now);
      return;
    }
    const update = async (m: EntityManager) => {
      const current = await this.devices.findById(device.id, m);
      if (!current) throw new NotFoundException(DeviceMessages.absent);
      await this.devices.setFirmwareVersion(m, device.id, firmwareVersion, now);
      // At the end of the transaction: a success report goes on to move the device's rollout state.
      await this.record(m, { ...current, firmwareVersion }, 'device.updated', undefined, 'at commit');
      return current;
    };
    if (manager) {
      await update(manager);
      return;
    }
    const current = await this.unitOfWork.transaction(update);
    await this.changes.changed(current.tenantId, [current.mac]);
  }

  /**
   * Creates a device that authenticates with its own target token (a hawkBit DDI device,
   * docs/decisions.md §11), with the given token or a new random one, kept only as its SHA-256.
   * @returns the device and its target token, shown this once.
   * @throws BadRequestException naming a bad controller id, device type, name, version or token;
   *   ConflictException {@link deviceExists} when the tenant has a device with that identifier.
   */
  async create(request: NewDevice): Promise<DeviceWithToken> {
    const identifier = canonicalIdentifier(request.controllerId);
    if (identifier === null) throw new BadRequestException(INVALID_CONTROLLER_ID);
    const problem = newDeviceProblem(request);
    if (problem !== null) throw new BadRequestException(problem.message);
    const targetToken = request.targetToken ?? newTargetToken();
    try {
      const device = await this.unitOfWork.transaction(async (manager) => {
        if (await this.devices.findByMac(request.tenantId, identifier, manager)) throw new DeviceExists();
        const now = this.clock.now();
        const created = await this.devices.insert(manager, {
          tenantId: request.tenantId,
          mac: identifier,
          name: request.name ?? identifier,
          firmwareVersion: request.firmwareVersion ?? '',
          deviceKeyId: null,
          deviceType: request.deviceType,
          lastSeenAt: null,
          createdAt: now,
          protocol: 'ddi',
          targetTokenHash: tokenHash(targetToken),
          attributes: null,
        });
        await this.record(manager, created, 'device.created', request.actor);
        return created;
      });
      await this.changes.changed(request.tenantId, [identifier]);
      return { device: deviceView(device), targetToken };
    } catch (error) {
      if (error instanceof DeviceExists || isUniqueViolation(error)) throw new ConflictException(deviceExists(identifier));
      throw error;
    }
  }

  /**
   * Gives the tenant's device a new random target token (the old one stops working at once).
   * @returns the device and its new token, shown this once.
   * @throws NotFoundException `Device "x" not found`.
   */
  async rotateTargetToken(tenantId: number, identifier: string, actor?: Actor): Promise<DeviceWithToken> {
    const targetToken = newTargetToken();
    const device = await this.unitOfWork.transaction(async (manager) => {
      const found = await this.devices.findByMac(tenantId, identifier, manager);
      if (!found) throw new NotFoundException(`Device "${identifier}" not found`);
      await this.devices.setTargetTokenHash(manager, found.id, tokenHash(targetToken));
      await this.record(manager, found, 'device.target-token-rotated', actor);
      return { ...found, targetTokenHash: tokenHash(targetToken) };
    });
    return { device: deviceView(device), targetToken };
  }

  /**
   * The DDI device a gateway token (a device key of the tenant flagged `ddi_gateway`,
   * docs/decisions.md §11, §12) speaks for: the tenant's DDI device with this identifier, or one
   * registered now, of the key's type, when the tenant has none. A device registered at the same
   * moment by another request is found, never a 500.
   * @returns the device, new or found; `null` when the identifier names a device of another
   *   protocol (asvin, Mender), which a gateway token never speaks for.
   */
  async registerByGateway(principal: DeviceKeyScope, identifier: string): Promise<Device | null> {
    const device = await this.findOrRegisterByGateway(principal, identifier);
    return device.protocol === 'ddi' ? device : null;
  }

  private async findOrRegisterByGateway(principal: DeviceKeyScope, identifier: string): Promise<Device> {
    // Every poll of a known device passes here: it is read without a transaction (a write one would queue behind the writer).
    const known = await this.devices.findByMac(principal.tenantId, identifier);
    if (known) return known;
    try {
      const device = await this.unitOfWork.transaction(async (manager) => {
        const found = await this.devices.findByMac(principal.tenantId, identifier, manager);
        if (found) return found;
        const now = this.clock.now();
        const device = await this.devices.insert(manager, {
          tenantId: principal.tenantId,
          mac: identifier,
          name: identifier,
          firmwareVersion: '',
          deviceKeyId: principal.deviceKeyId,
          deviceType: principal.deviceType,
          lastSeenAt: now,
          createdAt: now,
          protocol: 'ddi',
          targetTokenHash: null,
          attributes: null,
        });
        await this.record(manager, device, 'device.registered');
        return device;
      });
      await this.changes.changed(principal.tenantId, [identifier]);
      return device;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return this.require(principal.tenantId, identifier);
    }
  }

  /**
   * Registers (or finds) the device of an accepted Mender identity (docs/decisions.md §13): a
   * `mender` device of the tenant token's key and type, named by its identifier. A device
   * registered at the same moment by another request is found, never a 500.
   * @returns the device, new or found.
   * @throws ConflictException {@link deviceSpeaksOther} when the tenant has a device with this
   *   identifier that speaks another protocol.
   */
  async registerIdentified(principal: DeviceKeyScope, identifier: string, actor?: Actor): Promise<Device> {
    let device: Device;
    let inserted = false;
    try {
      device = await this.unitOfWork.transaction(async (manager) => {
        const found = await this.devices.findByMac(principal.tenantId, identifier, manager);
        if (found) return found;
        inserted = true;
        const now = this.clock.now();
        const created = await this.devices.insert(manager, {
          tenantId: principal.tenantId,
          mac: identifier,
          name: identifier,
          firmwareVersion: '',
          deviceKeyId: principal.deviceKeyId,
          deviceType: principal.deviceType,
          lastSeenAt: null,
          createdAt: now,
          protocol: 'mender',
          targetTokenHash: null,
          attributes: null,
        });
        await this.record(manager, created, 'device.registered', actor);
        return created;
      });
      if (inserted) await this.changes.changed(principal.tenantId, [identifier]);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      device = await this.require(principal.tenantId, identifier);
    }
    if (device.protocol !== 'mender') throw new ConflictException(deviceSpeaksOther(identifier, device.protocol));
    return device;
  }

  /**
   * Whether `token` is the target token of `device` (compared as SHA-256 digests, in constant time).
   * A device without a target token accepts none.
   */
  hasTargetToken(device: Pick<Device, 'targetTokenHash'>, token: string): boolean {
    if (device.targetTokenHash === null) return false;
    return timingSafeEqual(Buffer.from(device.targetTokenHash, 'hex'), createHash('sha256').update(token, 'utf8').digest());
  }

  /**
   * Records the attributes a device reports about itself (DDI `configData`, docs/decisions.md
   * §11; Mender inventory, §13): `merge` (the default) adds and replaces keys, `replace` keeps only
   * the reported ones, `remove` drops the reported keys. Written, with a ledger entry, only when
   * they change; the device counts as seen. A result of more than {@link MAX_ATTRIBUTES} keys is
   * refused (`beyondLimit` `refuse`, DDI as hawkBit), or (`drop`, Mender, whose client never gives
   * up on a refused inventory) cut to them: the kept attributes the report does not replace stay,
   * and the reported ones fill the room left, first by name.
   * @returns the names of the reported attributes dropped (empty unless `drop`).
   * @throws BadRequestException when the result would hold more than {@link MAX_ATTRIBUTES} keys and `beyondLimit` is `refuse`.
   */
  async reportAttributes(
    device: Device,
    data: Record<string, string>,
    mode: AttributesMode = 'merge',
    beyondLimit: 'refuse' | 'drop' = 'refuse',
  ): Promise<string[]> {
    const current = attributesOf(device) ?? {};
    let next: Record<string, string>;
    if (mode === 'replace') next = { ...data };
    else if (mode === 'remove') next = Object.fromEntries(Object.entries(current).filter(([key]) => !(key in data)));
    else next = { ...current, ...data };
    let dropped: string[] = [];
    if (Object.keys(next).length > MAX_ATTRIBUTES) {
      if (beyondLimit === 'refuse') throw new BadRequestException(`a device keeps at most ${MAX_ATTRIBUTES} attributes`);
      const kept = new Set(mode === 'replace' ? [] : Object.keys(current).filter((key) => key in next));
      const added = Object.keys(next)
        .filter((key) => !kept.has(key))
        .sort();
      const room = Math.max(0, MAX_ATTRIBUTES - kept.size);
      dropped = added.slice(room);
      for (const key of dropped) delete next[key];
    }
    const text = attributesText(next);
    this.lastSeen.seen(device.id, this.clock.now());
    if (text === device.attributes) return dropped;
    await this.unitOfWork.transaction(async (manager) => {
      await this.devices.setAttributes(manager, device.id, text);
      await this.ledger.append(manager, {
        tenantId: device.tenantId,
        type: 'device.attributes-reported',
        subject: Subject.device(device.mac),
        state: { mac: device.mac, attributes: next },
      });
    });
    await this.changes.changed(device.tenantId, [device.mac]);
    return dropped;
  }

  /**
   * Inserts devices of a tenant checked by the bulk import (docs/decisions.md §14), created at
   * `createdAt` (epoch ms), in `manager`'s transaction, with multi-row statements; a device whose identifier the tenant has is left as it is. No
   * ledger entry: the import writes one for all.
   * @returns the identifiers inserted.
   */
  insertImported(manager: EntityManager, tenantId: number, createdAt: number, devices: readonly NewDeviceRow[]): Promise<string[]> {
    return this.devices.insertMany(manager, tenantId, createdAt, devices);
  }

  /** Tells {@link DeviceChanges} that devices changed in a transaction of the caller's, after it committed. */
  devicesChanged(tenantId: number, macs: readonly string[]): Promise<void> {
    return this.changes.changed(tenantId, macs);
  }

  /** Records that a device was seen now (written behind, within a second). */
  seen(device: Pick<Device, 'id'>): void {
    this.lastSeen.seen(device.id, this.clock.now());
  }

  /** Records the device's state in the ledger now, or `at commit` of the caller's transaction ({@link LedgerService.hold}). */
  private async record(
    manager: EntityManager,
    device: Device,
    type: DeviceRecordEntry,
    actor?: Actor,
    when: 'now' | 'at commit' = 'now',
  ): Promise<void> {
    const event = {
      tenantId: device.tenantId,
      type,
      subject: Subject.device(device.mac),
      actor,
      state: { mac: device.mac, name: device.name, firmwareVersion: device.firmwareVersion, deviceType: device.deviceType },
    };
    if (when === 'now') await this.ledger.append(manager, event);
    else await this.ledger.hold(manager, event);
  }
}

/** A new target token: 24 random bytes, base64url (32 characters, no blank: an update client's option parser splits on blanks). */
function newTargetToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Lowercase hex SHA-256 of a target token: what is kept of it. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether text may be a target token: 1 to 128 printable ASCII characters without spaces (hawkBit `Target.SECURITY_TOKEN_MAX_SIZE`). */
function isTargetToken(text: string): boolean {
  return /^[\x21-\x7e]{1,128}$/.test(text);
}

/** A field of a new device that breaks its rule: the field's API name and the 400 text. */
export interface DeviceFieldProblem {
  field: 'device_type' | 'name' | 'firmware_version' | 'target_token';
  message: string;
}

/**
 * The first field of a new device (other than its identifier, see `canonicalIdentifier`) that
 * breaks its rule, or `null`: the one check of {@link DeviceService.create} and of the bulk
 * import (docs/decisions.md §11, §14). Device type and version: 1 to 64 printable characters;
 * name: 1 to 128 characters without control characters; target token: {@link INVALID_TARGET_TOKEN}.
 */
export function newDeviceProblem(
  device: Pick<NewDevice, 'deviceType' | 'name' | 'firmwareVersion' | 'targetToken'>,
): DeviceFieldProblem | null {
  if (!isPrintable(device.deviceType, 64)) return { field: 'device_type', message: printableMessage('device_type', 64) };
  if (device.name !== undefined && (device.name.length < 1 || device.name.length > 128 || !NO_CONTROL.test(device.name))) {
    return { field: 'name', message: 'name must be 1 to 128 characters without control characters' };
  }
  if (device.firmwareVersion !== undefined && !isPrintable(device.firmwareVersion, 64)) {
    return { field: 'firmware_version', message: printableMessage('firmware_version', 64) };
  }
  if (device.targetToken !== undefined && !isTargetToken(device.targetToken))
    return { field: 'target_token', message: INVALID_TARGET_TOKEN };
  return null;
}

/** 400 text of attributes that are not what a device may keep (docs/decisions.md §11). */
export const INVALID_ATTRIBUTES = `attributes must be an object of at most ${MAX_ATTRIBUTES} string values: keys of 1 to 128 characters, values of at most 128`;

/**
 * Whether `value` is attributes a device may keep (docs/decisions.md §11, hawkBit's limits): an
 * object of at most {@link MAX_ATTRIBUTES} string values, keys of 1 to 128 characters, values of at most 128,
 * neither holding a NUL or a lone surrogate (text no engine stores, docs/decisions.md §3).
 */
export function isAttributes(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  const fits = (text: unknown, min: number): boolean =>
    typeof text === 'string' && text.length >= min && text.length <= 128 && isStorableText(text);
  return entries.length <= MAX_ATTRIBUTES && entries.every(([key, text]) => fits(key, 1) && fits(text, 0));
}

/**
 * Attributes as kept in the `attributes` column: JSON with the keys sorted (as
 * {@link DeviceService.reportAttributes} writes them).
 */
export function attributesText(attributes: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}

function isPrintable(value: string, max: number): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= max && NO_CONTROL.test(value);
}

function printableMessage(field: string, max: number): string {
  return `${field} must be 1 to ${max} printable characters`;
}

/** The attributes a device reported, or `null` before it reported any. */
export function attributesOf(device: Pick<Device, 'attributes'>): Record<string, string> | null {
  return device.attributes === null ? null : (JSON.parse(device.attributes) as Record<string, string>);
}

/** The operator view of a device. */
export function deviceView(device: Device): DeviceView {
  return {
    mac: device.mac,
    protocol: device.protocol,
    hasTargetToken: device.targetTokenHash !== null,
    attributes: attributesOf(device),
    name: device.name,
    firmwareVersion: device.firmwareVersion,
    deviceType: device.deviceType,
    lastSeenAt: device.lastSeenAt === null ? null : new Date(device.lastSeenAt).toISOString(),
    createdAt: new Date(device.createdAt).toISOString(),
  };
}

/** Aborts a registration or creation transaction whose identifier exists. */
class DeviceExists extends Error {}
