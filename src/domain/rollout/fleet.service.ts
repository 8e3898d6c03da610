import { DeviceLabelService, labelTexts } from '#src/domain/device/device-labels.service.js';
import { Injectable, NotFoundException } from '@nestjs/common';
import { Clock } from '#src/platform/common/clock.js';
import type { CursorCounted, KeysetSlice } from '#src/platform/common/paging.js';
import { DeviceService, deviceView, type DeviceView } from '#src/domain/device/device.service.js';
import type { RolloutStatus } from './rollout.entity.js';
import type { DeviceState } from './policy/device-states.js';
import { DeviceStateRepository, type DeviceRolloutState } from './device-state.repository.js';
import { OfferWriter } from './offer-writer.js';
import type { DeploymentLogLine } from './deployment-log.entity.js';
import { DeploymentLogRepository } from './deployment-log.repository.js';
import { GroupService } from '#src/domain/group/group.service.js';
import { RolloutRepository } from './rollout.repository.js';
import { decide, type Decision } from './policy/decision.js';
import { minuteOf, rampAllowance, storedRampOf } from './policy/ramp.js';
import { storedWindowsOf } from './policy/windows.js';
import { wavesOf } from './rollout-snapshot.js';

/** Operator filters of a device list (docs/decisions.md §9). */
export interface FleetFilter {
  /** Group id or name the devices belong to. */
  group?: string;
  firmwareVersion?: string;
  deviceType?: string;
  /** Last seen at or after this time, epoch milliseconds. */
  seenSince?: number;
  /** Not seen since this time (last seen before it, or never), epoch milliseconds. */
  notSeenSince?: number;
  /** Part of the name (any case), or hex digits of the mac (separators ignored). */
  text?: string;
}

/** Most firmware version and device type combinations a {@link FleetSummary} lists. */
export const FLEET_SUMMARY_VERSIONS = 100;

/** How a tenant's fleet is made up, and how much of it was seen lately. */
export interface FleetSummary {
  devices: number;
  seenLastHour: number;
  seenLastDay: number;
  /** Devices per firmware version and device type, most devices first (then by version and type), at most {@link FLEET_SUMMARY_VERSIONS}. */
  versions: { firmwareVersion: string; deviceType: string; devices: number; seenLastDay: number }[];
  /** Combinations in all. */
  versionsTotal: number;
  /** ISO 8601 UTC time the counts are for. */
  at: string;
}

/** A rollout that targets a device, and what the device reported for it. */
export interface DeviceRolloutView {
  id: number;
  name: string;
  status: RolloutStatus;
  group: { id: number; name: string };
  firmwareId: number;
  /** Target firmware version. */
  version: string;
  /** Whether the device reported success for it (docs/decisions.md §6). */
  succeeded: boolean;
  /** ISO 8601 UTC of the success report, or `null`. */
  reportedAt: string | null;
  /** The version the device reported with it, or `null`. */
  reportedVersion: string | null;
  /** Its state in the rollout (docs/decisions.md §10), `null` when it has none yet. */
  state: DeviceState | null;
  /** Its wave, `null` when it has no state yet. */
  wave: number | null;
}

/** A device with its groups and rollout history. */
export interface DeviceDetail extends DeviceView {
  /** The tenant's groups the device's mac is a member of, by name. */
  groups: { id: number; name: string }[];
  /** Labels operators set on it, `key=value` or a plain word, by key (docs/decisions.md §10.3). */
  labels: string[];
  /** Rollouts that target it (through a group it is in, or that it reported success for), by id. */
  rollouts: DeviceRolloutView[];
}

/** A device's state in one rollout, with its history and the log it sent about its last failed attempt there. */
export interface DeviceRolloutHistory extends DeviceRolloutState {
  /** The deployment log (a Mender client's, docs/decisions.md §13), `null` when the device sent none. */
  log: { receivedAt: number; lines: DeploymentLogLine[] } | null;
}

/** What one rollout that is active or paused and names a device's group does for the device now (policy/decision.ts). */
export interface DeviceDecision {
  rolloutId: number;
  rolloutName: string;
  decision: Decision;
}

/** 404 text of the operator device lookup. */
export const deviceNotFound = (mac: string): string => `Device "${mac}" not found`;

/** The devices of a tenant as operators see them: filtered lists, groups and rollout history. */
@Injectable()
export class FleetService {
  constructor(
    private readonly devices: DeviceService,
    private readonly groups: GroupService,
    private readonly rollouts: RolloutRepository,
    private readonly states: DeviceStateRepository,
    private readonly offers: OfferWriter,
    private readonly clock: Clock,
    private readonly logs: DeploymentLogRepository,
    private readonly labels: DeviceLabelService,
  ) {}

  /**
   * The device's state in every rollout of the tenant it has one in, by rollout id, each with its
   * history (docs/decisions.md §10) and the log it sent about a failed attempt there.
   * @throws NotFoundException `Device "mac" not found`, also for another tenant's device.
   */
  /**
   * Why the device gets what it gets (docs/decisions.md §10.5): the decision ({@link decide}) of every
   * rollout of the tenant that is active or paused and names a group the device is a member of, by
   * rollout id, at this instant (maintenance windows and the ramp's allowance of the current minute
   * included). A skipped or settled device keeps the reason kept with its state.
   * @throws NotFoundException {@link deviceNotFound} for a device the tenant does not have.
   */
  async decisions(tenantId: number, mac: string): Promise<DeviceDecision[]> {
    const device = await this.devices.find(tenantId, mac);
    if (!device) throw new NotFoundException(deviceNotFound(mac));
    await this.offers.flush();
    const now = this.clock.now();
    const running = await this.rollouts.runningNaming(tenantId, device.id, device.mac);
    const ramps = running.some(({ rollout }) => rollout.ramp !== null) ? await this.rollouts.rampCountsOfRunning(minuteOf(now)) : null;
    const messages = await this.states.messagesOf(
      device.id,
      running.map(({ rollout }) => rollout.id),
    );
    return running.map(({ rollout, version, deviceType, state, wave }) => {
      const ramp = storedRampOf(rollout.ramp);
      const counts = ramps?.get(rollout.id);
      const decision = decide(
        { version: device.firmwareVersion, deviceType: device.deviceType, state, wave },
        {
          ...rollout,
          version,
          deviceType,
          waveCount: wavesOf(rollout).length,
          windows: storedWindowsOf(rollout.windows),
          rampSpent: ramp !== null && counts !== undefined && counts.thisMinute >= rampAllowance(ramp, counts),
        },
        now,
      );
      // A settled device: the reason its state was reached with (a skip's, a failure's) says more.
      const kept = messages.get(rollout.id);
      const explained = decision.kind === 'settled' && kept ? { ...decision, reason: `${state}: ${kept}` } : decision;
      return { rolloutId: rollout.id, rolloutName: rollout.name, decision: explained };
    });
  }

  async deviceRollouts(tenantId: number, mac: string): Promise<DeviceRolloutHistory[]> {
    const device = await this.devices.find(tenantId, mac);
    if (!device) throw new NotFoundException(deviceNotFound(mac));
    await this.offers.flush();
    const [states, logs] = await Promise.all([this.states.deviceStates(tenantId, device.id), this.logs.ofDevice(device.id)]);
    return states.map((state) => {
      const log = logs.find((l) => l.rolloutId === state.rolloutId);
      return { ...state, log: log ? { receivedAt: log.receivedAt, lines: JSON.parse(log.messages) as DeploymentLogLine[] } : null };
    });
  }

  /**
   * The tenant's fleet at a glance: devices, devices seen in the last hour and day, and devices
   * per firmware version and device type (kept counts and index ranges: {@link DeviceService.fleetCounts}).
   */
  async summary(tenantId: number): Promise<FleetSummary> {
    const now = this.clock.now();
    const counts = await this.devices.fleetCounts(tenantId, now);
    const versions = [...counts.versions]
      .sort((a, b) => b.devices - a.devices || compareText(a.firmwareVersion, b.firmwareVersion) || compareText(a.deviceType, b.deviceType))
      .slice(0, FLEET_SUMMARY_VERSIONS)
      .map((row) => ({
        firmwareVersion: row.firmwareVersion,
        deviceType: row.deviceType,
        devices: row.devices,
        seenLastDay: row.seenSinceDay,
      }));
    return {
      devices: counts.versions.reduce((total, row) => total + row.devices, 0),
      seenLastHour: counts.seenSinceHour,
      seenLastDay: counts.seenSinceDay,
      versions,
      versionsTotal: counts.versions.length,
      at: new Date(now).toISOString(),
    };
  }

  /**
   * One page of the tenant's devices matching every given filter, by mac, by offset or after a
   * cursor ({@link DeviceService.page}).
   * @throws NotFoundException `Group "x" not found` for a group filter naming no group of the tenant.
   */
  async listDevices(tenantId: number, filter: FleetFilter, slice: KeysetSlice): Promise<CursorCounted<DeviceView>> {
    const groupId = filter.group === undefined ? undefined : (await this.groups.require(tenantId, filter.group)).id;
    return this.devices.page(
      tenantId,
      {
        groupId,
        firmwareVersion: filter.firmwareVersion,
        deviceType: filter.deviceType,
        seenSince: filter.seenSince,
        notSeenSince: filter.notSeenSince,
        text: filter.text,
      },
      slice,
    );
  }

  /**
   * One device of the tenant (canonical mac) with its groups and rollout history.
   * @throws NotFoundException `Device "mac" not found`, also for another tenant's device.
   */
  async describeDevice(tenantId: number, mac: string): Promise<DeviceDetail> {
    const device = await this.devices.describe(tenantId, mac);
    if (!device) throw new NotFoundException(deviceNotFound(mac));
    await this.offers.flush();
    const [groups, history, labels] = await Promise.all([
      this.groups.groupsOfDevice(tenantId, mac),
      this.rollouts.deviceHistory(tenantId, device),
      this.labels.labels(device.id),
    ]);
    return {
      ...deviceView(device),
      groups,
      labels: labelTexts(labels),
      rollouts: history.map((row) => ({
        id: row.id,
        name: row.name,
        status: row.status,
        group: { id: row.groupId, name: row.groupName },
        firmwareId: row.firmwareId,
        version: row.version,
        succeeded: row.reportedAt !== null,
        reportedAt: row.reportedAt === null ? null : new Date(row.reportedAt).toISOString(),
        reportedVersion: row.reportedVersion,
        state: row.state,
        wave: row.wave,
      })),
    };
  }
}

/** Orders texts by code unit, whatever the locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
