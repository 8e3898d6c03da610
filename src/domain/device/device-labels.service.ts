import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { FieldException } from '#src/platform/http/http-error.filter.js';
import { canonicalIdentifier } from '#src/platform/common/device-identifier.js';
import type { Actor } from '#src/domain/ledger/ledger-actor.js';
import { LedgerService, Subject } from '#src/domain/ledger/ledger.service.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { Device, DeviceLabel } from './device.entity.js';
import { DeviceChanges } from './device-changes.js';

/** Most labels a device keeps (docs/decisions.md §10.3). */
export const MAX_LABELS = 20;

/** A label's key and value: 1 to 64 characters of letters, digits and `._:/-`. */
const LABEL_PART = /^[A-Za-z0-9._:/-]{1,64}$/;

/** 400 text of a label that is not `key` or `key=value`. */
export const invalidLabel = (text: string): string =>
  `"${text}" is not a label: key or key=value, each 1 to 64 characters of letters, digits and ._:/-`;

/**
 * A label text as key and value: `key=value`, or a plain word `key` (value `''`).
 * @throws FieldException (400, `field`) naming a bad label.
 */
export function parseLabel(text: string, field: string): [string, string] {
  const at = text.indexOf('=');
  const [key, value] = at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
  if (!LABEL_PART.test(key) || (at >= 0 && !LABEL_PART.test(value))) throw new FieldException(field, invalidLabel(text));
  return [key, value];
}

/** Labels as texts: `key=value`, or `key` for a plain word, by key. */
export const labelTexts = (labels: Readonly<Record<string, string>>): string[] =>
  Object.keys(labels)
    .sort()
    .map((key) => (labels[key] === '' ? key : `${key}=${labels[key]}`));

/** A device's labels by key. */
export type Labels = Record<string, string>;

/**
 * Labels operators set on devices (docs/decisions.md §10.3): at most {@link MAX_LABELS} per device,
 * each `key=value` or a plain word. Every change is on the ledger and tells {@link DeviceChanges}
 * (dynamic groups filter by labels).
 */
@Injectable()
export class DeviceLabelService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly unitOfWork: UnitOfWork,
    private readonly ledger: LedgerService,
    private readonly changes: DeviceChanges,
  ) {}

  /** The labels of a device (by id), by key. */
  async labels(deviceId: number, manager: EntityManager = this.dataSource.manager): Promise<Labels> {
    const rows = await manager.find(DeviceLabel, { where: { deviceId }, order: { key: 'ASC' } });
    return Object.fromEntries(rows.map((row) => [row.key, row.value]));
  }

  /**
   * Replaces the labels of the tenant's device `identifier`.
   * @throws FieldException (400, field `labels`) for a bad label or more than {@link MAX_LABELS};
   *   NotFoundException `Device "x" not found`.
   * @returns its labels now.
   */
  async set(tenantId: number, identifier: string, texts: readonly string[], actor?: Actor): Promise<Labels> {
    const labels = Object.fromEntries(texts.map((text) => parseLabel(text, 'labels')));
    if (Object.keys(labels).length > MAX_LABELS) throw new FieldException('labels', `a device keeps at most ${MAX_LABELS} labels`);
    const [result] = await this.change(tenantId, [identifier], () => labels, actor);
    return result;
  }

  /**
   * Adds labels to (a key it has takes the new value) and removes label keys from devices of the
   * tenant, all in one transaction: a bad label or an unknown device changes nothing.
   * @throws FieldException (400, field `add`, `remove` or `devices`); NotFoundException `Device "x" not found`.
   * @returns each device's labels now, in the order given.
   */
  async change(tenantId: number, identifiers: readonly string[], next: (labels: Labels) => Labels, actor?: Actor): Promise<Labels[]> {
    const macs = identifiers.map((text) => canonicalIdentifier(text.trim()) ?? text);
    const result = await this.unitOfWork.transaction(async (manager) => {
      const devices = await manager.find(Device, { where: { tenantId, mac: In([...new Set(macs)]) } });
      const byMac = new Map(devices.map((device) => [device.mac, device]));
      const missing = macs.find((mac) => !byMac.has(mac));
      if (missing !== undefined) throw new NotFoundException(`Device "${missing}" not found`);
      const answers: Labels[] = [];
      for (const mac of macs) {
        const device = byMac.get(mac) as Device;
        const before = await this.labels(device.id, manager);
        const after = next(before);
        if (Object.keys(after).length > MAX_LABELS) throw new FieldException('labels', `a device keeps at most ${MAX_LABELS} labels`);
        if (labelTexts(after).join('\n') !== labelTexts(before).join('\n')) {
          await manager.delete(DeviceLabel, { deviceId: device.id });
          const rows = Object.entries(after).map(([key, value]) => ({ deviceId: device.id, key, value }));
          if (rows.length > 0) await manager.insert(DeviceLabel, rows);
          await this.ledger.append(manager, {
            tenantId,
            type: 'device.labels-set',
            subject: Subject.device(device.mac),
            actor,
            state: { mac: device.mac, labels: labelTexts(after) },
          });
        }
        answers.push(after);
      }
      return answers;
    });
    await this.changes.changed(tenantId, [...new Set(macs)]);
    return result;
  }

  /**
   * {@link change} with labels to add and keys to remove (bulk form).
   * @throws FieldException (400, field `add` or `remove`) naming a bad label or key.
   */
  addRemove(tenantId: number, identifiers: readonly string[], add: readonly string[], remove: readonly string[], actor?: Actor) {
    if (identifiers.length === 0) throw new FieldException('devices', 'devices must name at least one device');
    const added = Object.fromEntries(add.map((text) => parseLabel(text, 'add')));
    const removed = remove.map((text) => parseLabel(text, 'remove')[0]);
    return this.change(
      tenantId,
      identifiers,
      (labels) => {
        const next = { ...labels, ...added };
        for (const key of removed) delete next[key];
        return next;
      },
      actor,
    );
  }
}
