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

/**
 * The metadata of one repository a client needs to check a target with no network: every root
 * version (oldest first, to walk from the one it trusts) and the newest targets, snapshot and
 * timestamp, each a signed TUF metadata object as served.
 */
export interface TufMetadataSet {
  root: unknown[];
  targets: unknown;
  snapshot: unknown;
  timestamp: unknown;
}

/** What {@link TufService.verify} found. */
export interface TufCheck {
  /** Repositories (tenant and device type) checked. */
  repositories: number;
  /** Metadata files checked. */
  files: number;
  /**
   * The newest metadata past its expiry: not a break (a repository is signed again when it is
   * next read), but what a client would refuse until then. `tenant 1 ESP32: timestamp v3 expired 2026-…`.
   */
  expired: string[];
  /** The first thing that does not hold, by repository. */
  firstBreak?: { repository: string; reason: string };
}

const KINDS = {
  root: MetadataKind.Root,
  targets: MetadataKind.Targets,
  snapshot: MetadataKind.Snapshot,
  timestamp: MetadataKind.Timestamp,
};

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

  /**
   * The repository's metadata for an offline check ({@link TufMetadataSet}), brought up to date first.
   */
  async metadataSet(tenantId: number, deviceType: string): Promise<TufMetadataSet> {
    await this.refresh(tenantId, deviceType);
    const rows = await this.metadata.all(tenantId, deviceType);
    const of = (role: TufRole) => rows.filter((row) => row.role === role).map((row) => JSON.parse(row.body) as unknown);
    return { root: of('root'), targets: of('targets').at(-1), snapshot: of('snapshot').at(-1), timestamp: of('timestamp').at(-1) };
  }

  /**
   * Checks every repository's stored metadata as a TUF client would (with `@tufjs/models`): root
   * versions run 1, 2, 3… and each is signed by a threshold of the keys of the one before and of
   * its own; every targets, snapshot and timestamp version is signed by a threshold of the keys a
   * root names for its role; each file's version and expiry are those it is stored under; the
   * newest snapshot lists the newest targets, the newest timestamp the newest snapshot. Writes nothing.
   * @param now the time to judge expiry by, epoch ms.
   */
  async verify(now = this.clock.now()): Promise<TufCheck> {
    const check: TufCheck = { repositories: 0, files: 0, expired: [] };
    for (const { tenantId, deviceType } of await this.metadata.repositories()) {
      const repository = `tenant ${tenantId} ${deviceType}`;
      const reason = this.verifyRepository(await this.metadata.all(tenantId, deviceType), now, check, repository);
      if (reason) return { ...check, firstBreak: { repository, reason } };
      check.repositories++;
    }
    return check;
  }

  private verifyRepository(rows: TufMetadata[], now: number, check: TufCheck, repository: string): string | null {
    type AnyMetadata = Metadata<Root | Targets | Snapshot | Timestamp>;
    const parsed = new Map<TufRole, AnyMetadata[]>();
    for (const row of rows) {
      const role = row.role as TufRole;
      let metadata: AnyMetadata;
      try {
        if (!(role in KINDS)) throw new Error(`unknown role ${row.role}`);
        metadata = Metadata.fromJSON(KINDS[role] as MetadataKind.Root, JSON.parse(row.body) as never);
      } catch (error) {
        return `${row.role} v${row.version} is not TUF metadata: ${(error as Error).message}`;
      }
      if (metadata.signed.version !== row.version) return `${role} v${row.version} says it is version ${metadata.signed.version}`;
      if (Date.parse(metadata.signed.expires) !== row.expiresAt)
        return `${role} v${row.version} expires at another time than it is stored with`;
      parsed.set(role, [...(parsed.get(role) ?? []), metadata]);
      check.files++;
    }
    const roots = (parsed.get('root') ?? []) as Metadata<Root>[];
    if (roots.length === 0) return 'no root metadata';
    for (const [i, root] of roots.entries()) {
      if (root.signed.version !== i + 1) return `root versions jump from ${i} to ${root.signed.version}`;
      const signers = i === 0 ? [root] : [roots[i - 1], root];
      for (const signer of signers) {
        try {
          signer.verifyDelegate('root', root);
        } catch {
          return `root v${i + 1} is not signed by a threshold of the root keys of root v${signer.signed.version}`;
        }
      }
    }
    for (const role of ['targets', 'snapshot', 'timestamp'] as const) {
      for (const metadata of parsed.get(role) ?? []) {
        const signedBy = [...roots].reverse().some((root) => {
          try {
            root.verifyDelegate(role, metadata);
            return true;
          } catch {
            return false;
          }
        });
        if (!signedBy) return `${role} v${metadata.signed.version} is not signed by a threshold of the ${role} keys of any root`;
      }
    }
    const newest = (role: TufRole) => parsed.get(role)?.at(-1);
    const [targets, snapshot, timestamp] = [newest('targets'), newest('snapshot'), newest('timestamp')] as [
      Metadata<Targets> | undefined,
      Metadata<Snapshot> | undefined,
      Metadata<Timestamp> | undefined,
    ];
    if (!targets || !snapshot || !timestamp) return 'targets, snapshot or timestamp metadata is missing';
    if (snapshot.signed.meta['targets.json']?.version !== targets.signed.version) {
      return `snapshot v${snapshot.signed.version} does not list the newest targets (v${targets.signed.version})`;
    }
    if (timestamp.signed.snapshotMeta.version !== snapshot.signed.version) {
      return `timestamp v${timestamp.signed.version} does not list the newest snapshot (v${snapshot.signed.version})`;
    }
    for (const [role, metadata] of [
      ['root', roots.at(-1)!],
      ['targets', targets],
      ['snapshot', snapshot],
      ['timestamp', timestamp],
    ] as const) {
      if (metadata.signed.isExpired(new Date(now))) {
        check.expired.push(`${repository}: ${role} v${metadata.signed.version} expired ${metadata.signed.expires}`);
      }
    }
    return null;
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
