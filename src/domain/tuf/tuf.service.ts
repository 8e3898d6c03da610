import { Injectable, NotFoundException } from '@nestjs/common';
import { Metadata, MetadataKind, MetaFile, Root, Snapshot, TargetFile, Targets, Timestamp } from '@tufjs/models';
import { Clock } from '#src/platform/common/clock.js';
import { lockAcrossInstances, LockKey, UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { FirmwareService } from '#src/domain/firmware/firmware.service.js';
import { TufKeys, type TufRole } from './tuf-keys.js';
import type { TufMetadata } from './tuf-metadata.entity.js';
import { TufRepository } from './tuf.repository.js';

/** The TUF specification version the metadata declares. */
const SPEC_VERSION = '1.0.31';
const DAY = 86_400_000;

/**
 * How long each role's metadata is valid, and how close to expiry it is signed again. The
 * timestamp is short-lived (a frozen repository is noticed within a day); root is long-lived.
 */
export const TufLifetimes: Record<TufRole, { validMs: number; renewBeforeMs: number }> = {
  root: { validMs: 365 * DAY, renewBeforeMs: 30 * DAY },
  targets: { validMs: 30 * DAY, renewBeforeMs: 7 * DAY },
  snapshot: { validMs: 7 * DAY, renewBeforeMs: DAY },
  timestamp: { validMs: DAY, renewBeforeMs: 3_600_000 },
};

/** 404 text of a metadata file the repository does not have. */
export const TUF_METADATA_NOT_FOUND = 'TUF metadata not found';

/** `expires` in TUF's form: ISO 8601 UTC to the second. */
const expires = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Signed update metadata (TUF: root, targets, snapshot, timestamp) for the firmware of each tenant
 * and device type, built with `@tufjs/models` (canonical JSON, metadata shapes) and the keys of
 * {@link TufKeys}. A repository is brought up to date whenever it is read: a role is signed
 * again, at the next version, when what it covers changed or it is close to expiry (see
 * {@link TufLifetimes}); versions only grow. A target is a firmware binary named by its CID,
 * served by the IPFS component (`{ipfs_url}/ipfs/<cid>`), with its length, SHA-256 and, as
 * custom fields, its version and firmware id.
 */
@Injectable()
export class TufService {
  constructor(
    private readonly keys: TufKeys,
    private readonly metadata: TufRepository,
    private readonly firmware: FirmwareService,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  /**
   * A metadata file of the device type's repository: `<n>.root.json`, `root.json` (the newest),
   * `targets.json`, `snapshot.json` or `timestamp.json`.
   * @throws NotFoundException `TUF metadata not found` for any other name or a root version not signed.
   */
  async file(tenantId: number, deviceType: string, name: string): Promise<string> {
    const match = /^(?:(\d{1,10})\.)?(root|targets|snapshot|timestamp)\.json$/.exec(name);
    if (!match || (match[1] !== undefined && match[2] !== 'root')) throw new NotFoundException(TUF_METADATA_NOT_FOUND);
    await this.refresh(tenantId, deviceType);
    const found =
      match[1] !== undefined
        ? await this.metadata.version(tenantId, deviceType, 'root', Number(match[1]))
        : await this.metadata.newest(tenantId, deviceType, match[2]);
    if (!found) throw new NotFoundException(TUF_METADATA_NOT_FOUND);
    return found.body;
  }

  /** Signs whatever role is missing, out of date or close to expiry, in one transaction (one signer across instances). */
  async refresh(tenantId: number, deviceType: string): Promise<void> {
    const firmware = (await this.firmware.list(tenantId)).filter((f) => f.deviceType === deviceType);
    await this.unitOfWork.transaction(async (manager) => {
      await lockAcrossInstances(manager, LockKey.tuf);
      const now = this.clock.now();
      const newest = (role: TufRole) => this.metadata.newest(tenantId, deviceType, role, manager);
      const due = (row: TufMetadata | null, role: TufRole) => !row || row.expiresAt - TufLifetimes[role].renewBeforeMs <= now;
      const save = async <T extends Root | Targets | Snapshot | Timestamp>(role: TufRole, signed: Metadata<T>) => {
        await this.metadata.insert(manager, {
          tenantId,
          deviceType,
          role,
          version: signed.signed.version,
          body: JSON.stringify(signed.toJSON()),
          expiresAt: Date.parse(signed.signed.expires),
        });
      };
      const options = (role: TufRole, previous: TufMetadata | null) => ({
        version: (previous?.version ?? 0) + 1,
        specVersion: SPEC_VERSION,
        expires: expires(now + TufLifetimes[role].validMs),
      });

      // root: new when missing, close to expiry, or the root key was rotated
      const root = await newest('root');
      const rootKey = this.keys.role('root');
      const previousRoot = root ? Metadata.fromJSON(MetadataKind.Root, JSON.parse(root.body) as never) : null;
      if (!root || due(root, 'root') || !previousRoot!.signed.roles['root'].keyIDs.includes(rootKey.key.keyID)) {
        const signed = new Metadata(new Root({ ...options('root', root), consistentSnapshot: false }));
        for (const role of ['root', 'targets', 'snapshot', 'timestamp'] as const) {
          const key = role === 'root' ? rootKey : this.keys.role(role);
          signed.signed.addKey(key.key, role);
        }
        signed.sign(rootKey.signer);
        // TUF root rotation: the new root is also signed by the keys the previous root trusts
        const oldKeys = this.keys.rootKeys();
        for (const keyID of previousRoot?.signed.roles['root'].keyIDs ?? []) {
          const old = oldKeys.get(keyID);
          if (old && keyID !== rootKey.key.keyID) signed.sign(old.signer);
        }
        await save('root', signed);
      }

      // targets: new when the firmware set changed or close to expiry
      const targetsRow = await newest('targets');
      const targetFiles = Object.fromEntries(
        firmware.map((f) => [
          f.cid,
          new TargetFile({
            path: f.cid,
            length: f.size,
            hashes: { sha256: f.sha256 },
            unrecognizedFields: { custom: { version: f.version, firmware_id: f.id } },
          }),
        ]),
      );
      const sameTargets =
        targetsRow &&
        JSON.stringify(new Targets({ ...options('targets', null), targets: targetFiles }).toJSON()['targets']) ===
          JSON.stringify((JSON.parse(targetsRow.body) as { signed: { targets: unknown } }).signed.targets);
      let targetsVersion = targetsRow?.version ?? 0;
      if (!sameTargets || due(targetsRow, 'targets')) {
        const signed = new Metadata(new Targets({ ...options('targets', targetsRow), targets: targetFiles }));
        signed.sign(this.keys.role('targets').signer);
        await save('targets', signed);
        targetsVersion = signed.signed.version;
      }

      // snapshot: new when it does not list the newest targets, or close to expiry
      const snapshotRow = await newest('snapshot');
      let snapshotVersion = snapshotRow?.version ?? 0;
      const listed = (row: TufMetadata | null, file: string): number | undefined =>
        row ? (JSON.parse(row.body) as { signed: { meta: Record<string, { version: number }> } }).signed.meta[file]?.version : undefined;
      if (listed(snapshotRow, 'targets.json') !== targetsVersion || due(snapshotRow, 'snapshot')) {
        const signed = new Metadata(
          new Snapshot({ ...options('snapshot', snapshotRow), meta: { 'targets.json': new MetaFile({ version: targetsVersion }) } }),
        );
        signed.sign(this.keys.role('snapshot').signer);
        await save('snapshot', signed);
        snapshotVersion = signed.signed.version;
      }

      // timestamp: new when it does not list the newest snapshot, or close to expiry
      const timestampRow = await newest('timestamp');
      if (listed(timestampRow, 'snapshot.json') !== snapshotVersion || due(timestampRow, 'timestamp')) {
        const signed = new Metadata(
          new Timestamp({ ...options('timestamp', timestampRow), snapshotMeta: new MetaFile({ version: snapshotVersion }) }),
        );
        signed.sign(this.keys.role('timestamp').signer);
        await save('timestamp', signed);
      }
    });
  }
}
