import { Injectable, Logger, PayloadTooLargeException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { EntityManager } from 'typeorm';
import { Clock } from '#src/platform/common/clock.js';
import { canonicalIdentifier } from '#src/platform/common/device-identifier.js';
import { canonicalMac } from '#src/platform/common/mac.js';
import { FieldException } from '#src/platform/http/http-error.filter.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { refreshStatistics } from '#src/platform/database/sql.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import type { DeviceProtocol } from '#src/domain/device/device.entity.js';
import {
  DeviceService,
  INVALID_ATTRIBUTES,
  attributesText,
  isAttributes,
  newDeviceProblem,
  tokenHash,
  type NewDevice,
} from '#src/domain/device/device.service.js';
import { GroupChanges } from '#src/domain/group/group-changes.js';
import { DeviceChanges } from '#src/domain/device/device-changes.js';
import { GroupRepository } from '#src/domain/group/group.repository.js';
import { notAnIdentifier } from '#src/domain/group/group.service.js';
import { readImportRows, RowProblem, type ImportFormat, type ImportRow } from './import-rows.js';

/** What a `mac` cell must be (a controller id goes in `controller_id`). */
const NOT_A_MAC = 'a hardware address (EUI-48 or EUI-64, e.g. AC:67:B2:01:02:03); a controller id goes in controller_id';

/** Most bad rows one import reports before it stops reading (docs/decisions.md §14). */
export const MAX_ROW_ERRORS = 20;

/** Most skipped identifiers an import's answer lists (all are counted). */
export const MAX_SKIPPED_LISTED = 100;

/** Rows read between two calls of {@link DeviceImport.onProgress}. */
const PROGRESS_ROWS = 10_000;

/** Rows written by one batch of the write phase (the repository splits them into statements). */
const WRITE_BATCH_ROWS = 5_000;

/** Rows an import writes (devices created plus members added) from which PostgreSQL's statistics are refreshed after it. */
const ANALYZE_AFTER_ROWS = 10_000;

/** The protocols an imported device may speak (a Mender device is admitted through its identity, §13). */
const IMPORT_PROTOCOLS: readonly DeviceProtocol[] = ['asvin', 'ddi'];

/** 413 text of an import over its limit. */
export const importTooLarge = (maxBytes: number): string => `Import is larger than ${maxBytes} bytes (DEVICE_IMPORT_MAX_BYTES)`;

/** A bulk import of devices into a tenant (docs/decisions.md §14). */
export interface DeviceImport {
  tenantId: number;
  format: ImportFormat;
  /** The rows, read once, as they arrive. */
  input: Readable;
  /** Most bytes read from `input` before it is refused (413). */
  maxBytes: number;
  /** Who imports (recorded on the ledger). */
  actor?: Actor;
  /** Called with the rows read so far, every {@link PROGRESS_ROWS} rows, and once more (`last`) when all were read and checked. */
  onProgress?: (rows: number, last: boolean) => void;
}

/** A bad row: its line, the field, and the text (`line 7: mac "zz" is not a hardware address …`). */
export interface ImportRowError {
  line: number;
  field: string;
  message: string;
}

/** What an import did. */
export interface DeviceImportResult {
  /** Rows read. */
  rows: number;
  /** Devices created. */
  created: number;
  /** Rows skipped: the tenant had a device with their identifier (or an earlier row named it). */
  skipped: number;
  /** The first {@link MAX_SKIPPED_LISTED} skipped identifiers, in the order of the rows. */
  skippedDevices: string[];
  /** Lowercase hex SHA-256 of the bytes read: what the ledger entry records. */
  sha256: string;
}

/** The rows of an import that failed its checks; nothing was written. */
export class DeviceImportRejected extends FieldException {
  constructor(readonly rowErrors: ImportRowError[]) {
    super(
      rowErrors[0].field,
      rowErrors.length === 1
        ? rowErrors[0].message
        : `${rowErrors[0].message} (and ${rowErrors.length - 1} more bad row${rowErrors.length === 2 ? '' : 's'}${rowErrors.length >= MAX_ROW_ERRORS ? ', reading stopped' : ''})`,
      rowErrors,
    );
  }
}

/** A checked row, as spooled between the two phases: the values of its `device` row and its group. */
type SpooledRow = [
  mac: string,
  name: string,
  firmwareVersion: string,
  deviceType: string,
  protocol: DeviceProtocol,
  tokenHash: string | null,
  attributes: string | null,
  groupId: number | null,
];

/**
 * Bulk device import (docs/decisions.md §14): rows of CSV or NDJSON, each checked by the rules
 * of a single device's creation ({@link newDeviceProblem}, `canonicalIdentifier`); all or nothing.
 *
 * Two phases. First the input is read as a stream, each row checked and spooled to a temporary
 * file (so a million rows are never held in memory, and the write transaction never waits on a
 * client); the first {@link MAX_ROW_ERRORS} bad rows are collected, then reading stops and
 * nothing is written. Then one transaction writes the spooled rows with multi-row inserts,
 * skipping identifiers the tenant has, adds the group members, and appends one ledger entry
 * `device.imported` (counts and the input's SHA-256, not one entry per device).
 */
@Injectable()
export class DeviceImportService {
  private readonly logger = new Logger('DeviceImport');

  constructor(
    private readonly devices: DeviceService,
    private readonly groups: GroupRepository,
    private readonly groupChanges: GroupChanges,
    private readonly deviceChanges: DeviceChanges,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly clock: Clock,
  ) {}

  /**
   * Imports the rows of `request.input`.
   * @throws DeviceImportRejected (400) naming each bad row (at most {@link MAX_ROW_ERRORS});
   *   PayloadTooLargeException {@link importTooLarge}.
   */
  async import(request: DeviceImport): Promise<DeviceImportResult> {
    const directory = await mkdtemp(join(tmpdir(), 'firmledger-import-'));
    try {
      const spoolPath = join(directory, 'rows.ndjson');
      const started = performance.now();
      const read = await this.check(request, createWriteStream(spoolPath));
      const checked = performance.now();
      const written = await this.unitOfWork.transaction((manager) => this.write(manager, request, spoolPath, read));
      this.logger.log(
        `tenant ${request.tenantId}: imported ${read.rows} rows (${written.created} created, ${written.skipped} skipped): ` +
          `read and checked in ${((checked - started) / 1000).toFixed(1)} s, written in ${((performance.now() - checked) / 1000).toFixed(1)} s`,
      );
      // A big import leaves PostgreSQL's statistics far behind the tables until autovacuum runs.
      if (written.created + [...written.added.values()].reduce((n, macs) => n + macs.length, 0) >= ANALYZE_AFTER_ROWS) {
        await this.unitOfWork.write((manager) => refreshStatistics(manager, ['device', 'group_member']));
      }
      for (const [groupId, added] of written.added) await this.groupChanges.changed(groupId, { added, removed: [] });
      if (written.created > 0) await this.deviceChanges.changed(request.tenantId, null);
      return {
        rows: read.rows,
        created: written.created,
        skipped: written.skipped,
        skippedDevices: written.skippedDevices,
        sha256: read.sha256,
      };
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  /** Phase one: reads, checks and spools every row. @throws DeviceImportRejected, PayloadTooLargeException */
  private async check(
    request: DeviceImport,
    spool: WriteStream,
  ): Promise<{ rows: number; sha256: string; groupNames: Map<number, string> }> {
    const digest = createHash('sha256');
    let bytes = 0;
    const metered = request.input.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          if (bytes > request.maxBytes) return done(new PayloadTooLargeException(importTooLarge(request.maxBytes)));
          digest.update(chunk);
          done(null, chunk);
        },
      }),
    );
    request.input.on('error', (error) => metered.destroy(error));
    const groupIds = new Map<string, number | null>();
    const errors: ImportRowError[] = [];
    let rows = 0;
    try {
      for await (const row of readImportRows(metered, request.format)) {
        rows++;
        if (rows % PROGRESS_ROWS === 0) request.onProgress?.(rows, false);
        const checked = await this.checkRow(request.tenantId, row, groupIds);
        if ('message' in checked) {
          errors.push(checked);
          if (errors.length >= MAX_ROW_ERRORS) break;
        } else if (errors.length === 0 && !spool.write(`${JSON.stringify(checked)}\n`)) {
          await new Promise<void>((drain) => spool.once('drain', () => drain()));
        }
      }
    } catch (error) {
      if (!(error instanceof RowProblem)) throw error;
      errors.push({ line: error.line, field: error.field, message: error.message });
    } finally {
      spool.end();
      await finished(spool).catch(() => undefined);
    }
    if (errors.length === 0 && rows === 0) errors.push({ line: 1, field: request.format, message: 'line 1: the import has no rows' });
    if (errors.length > 0) {
      metered.destroy();
      throw new DeviceImportRejected(errors);
    }
    request.onProgress?.(rows, true);
    const groupNames = new Map([...groupIds].filter((e): e is [string, number] => e[1] !== null).map(([name, id]) => [id, name]));
    return { rows, sha256: digest.digest('hex'), groupNames };
  }

  /** A row as spooled, or what is wrong with it (its first bad field). */
  private async checkRow(tenantId: number, row: ImportRow, groupIds: Map<string, number | null>): Promise<SpooledRow | ImportRowError> {
    const f = row.fields;
    const bad = (field: string, text: string): ImportRowError => ({ line: row.line, field, message: `line ${row.line}: ${text}` });
    const idField = f.mac !== undefined ? 'mac' : 'controller_id';
    if (f.mac !== undefined && f.controller_id !== undefined) return bad('controller_id', 'give mac or controller_id, not both');
    const idText = f[idField];
    if (idText === undefined) return bad('mac', 'mac (or controller_id) is required');
    if (typeof idText !== 'string') return bad(idField, `${idField} must be a string`);
    const isMac = canonicalMac(idText) !== null;
    if (idField === 'mac' && !isMac) return bad('mac', `mac "${idText}" is not ${NOT_A_MAC}`);
    const identifier = canonicalIdentifier(idText);
    if (identifier === null) return bad(idField, `controller_id ${notAnIdentifier(idText)}`);
    for (const field of ['device_type', 'firmware_version', 'name', 'group', 'protocol', 'target_token'] as const) {
      if (f[field] !== undefined && typeof f[field] !== 'string') return bad(field, `${field} must be a string`);
    }
    if (f.device_type === undefined) return bad('device_type', 'device_type is required');
    const device: Pick<NewDevice, 'deviceType' | 'name' | 'firmwareVersion' | 'targetToken'> = {
      deviceType: f.device_type as string,
      name: f.name as string | undefined,
      firmwareVersion: f.firmware_version as string | undefined,
      targetToken: f.target_token as string | undefined,
    };
    const problem = newDeviceProblem(device);
    if (problem !== null) return bad(problem.field, problem.message);
    const protocol = (f.protocol as string | undefined) ?? (idField === 'mac' && device.targetToken === undefined ? 'asvin' : 'ddi');
    if (!IMPORT_PROTOCOLS.includes(protocol as DeviceProtocol)) return bad('protocol', 'protocol must be asvin or ddi');
    if (protocol === 'asvin' && !isMac)
      return bad(idField, `${idField} "${idText}" is no hardware address: an asvin device is named by one`);
    if (protocol === 'asvin' && device.targetToken !== undefined) return bad('target_token', 'an asvin device has no target token');
    let attributes: string | null = null;
    if (f.attributes !== undefined) {
      let value: unknown = f.attributes;
      if (typeof value === 'string') {
        try {
          value = JSON.parse(value);
        } catch {
          return bad('attributes', INVALID_ATTRIBUTES);
        }
      }
      if (!isAttributes(value)) return bad('attributes', INVALID_ATTRIBUTES);
      attributes = Object.keys(value).length === 0 ? null : attributesText(value);
    }
    let groupId: number | null = null;
    if (f.group !== undefined) {
      const name = f.group as string;
      if (!groupIds.has(name)) groupIds.set(name, (await this.groups.findGroup(tenantId, name))?.id ?? null);
      groupId = groupIds.get(name) ?? null;
      if (groupId === null) return bad('group', `group "${name}" not found (create it first)`);
    }
    return [
      identifier,
      device.name ?? identifier,
      device.firmwareVersion ?? '',
      device.deviceType,
      protocol as DeviceProtocol,
      device.targetToken === undefined ? null : tokenHash(device.targetToken),
      attributes,
      groupId,
    ];
  }

  /**
   * Phase two, in one transaction (run again from the start after a lost race, so it reads the
   * spool again): inserts the rows, adds the members, appends the ledger entry.
   */
  private async write(
    manager: EntityManager,
    request: DeviceImport,
    spoolPath: string,
    read: { rows: number; sha256: string; groupNames: Map<number, string> },
  ): Promise<{ created: number; skipped: number; skippedDevices: string[]; added: Map<number, string[]> }> {
    const now = this.clock.now();
    const added = new Map<number, string[]>();
    const skippedDevices: string[] = [];
    let created = 0;
    let skipped = 0;
    let batch: SpooledRow[] = [];
    const flush = async (): Promise<void> => {
      const inserted = new Set(
        await this.devices.insertImported(
          manager,
          request.tenantId,
          now,
          batch.map(([mac, name, firmwareVersion, deviceType, protocol, targetTokenHash, attributes]) => ({
            mac,
            name,
            firmwareVersion,
            deviceType,
            protocol,
            targetTokenHash,
            attributes,
          })),
        ),
      );
      const members = new Map<number, string[]>();
      for (const [mac, , , , , , , groupId] of batch) {
        if (!inserted.delete(mac)) {
          skipped++;
          if (skippedDevices.length < MAX_SKIPPED_LISTED) skippedDevices.push(mac);
          continue;
        }
        created++;
        if (groupId === null) continue;
        const macs = members.get(groupId);
        if (macs === undefined) members.set(groupId, [mac]);
        else macs.push(mac);
      }
      for (const [groupId, macs] of members) {
        await this.groups.addMembers(manager, groupId, macs);
        const all = added.get(groupId);
        if (all === undefined) added.set(groupId, macs);
        else for (const mac of macs) all.push(mac);
      }
      batch = [];
    };
    for await (const line of createInterface({ input: createReadStream(spoolPath), crlfDelay: Infinity })) {
      batch.push(JSON.parse(line) as SpooledRow);
      if (batch.length >= WRITE_BATCH_ROWS) await flush();
    }
    if (batch.length > 0) await flush();
    if (created > 0) {
      await this.ledger.append(manager, {
        tenantId: request.tenantId,
        type: 'device.imported',
        subject: Subject.tenant(request.tenantId),
        actor: request.actor,
        state: {
          format: request.format,
          sha256: read.sha256,
          rows: read.rows,
          created,
          skipped,
          groups: [...added].map(([id, macs]) => ({ id, name: read.groupNames.get(id), added: macs.length })),
        },
      });
    }
    return { created, skipped, skippedDevices, added };
  }
}
