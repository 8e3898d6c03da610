/** Answers of the operator API, as `openapi/operator.json` documents them. */

import type { DeviceState, StateCounts } from '#src/operator/console/rollout-progress';

export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

export type Role = 'admin' | 'viewer';

export interface SessionOperator {
  username: string;
  role: Role;
  expires_at: string;
}

export interface Session {
  operator: SessionOperator | null;
}

export interface Tenant {
  id: number;
  name: string;
  created_at: string;
}

export interface TenantWithKey extends Tenant {
  customer_key: string;
}

export interface DeviceKey {
  id: number;
  key: string;
  device_type: string;
  revoked: boolean;
  created_at: string;
}

export interface Device {
  mac: string;
  name: string;
  firmware_version: string;
  device_type: string;
  last_seen_at: string | null;
  created_at: string;
}

export const AUTH_SET_STATUSES = ['pending', 'accepted', 'rejected', 'preauthorized', 'decommissioned'] as const;
export type AuthSetStatus = (typeof AUTH_SET_STATUSES)[number];

/** A Mender device's identity with one public key, and whether it may authenticate (`GET …/device-auth-sets`). */
export interface AuthSet {
  id: number;
  identifier: string;
  id_data: Record<string, string | string[]>;
  fingerprint: string;
  key_type: string;
  public_key: string;
  status: AuthSetStatus;
  device_type: string | null;
  device_key_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface GroupRef {
  id: number;
  name: string;
}

/** A rollout that targets a device, and where the device stands in it. */
export interface DeviceRollout {
  id: number;
  name: string;
  status: RolloutStatus;
  group: GroupRef;
  firmware_id: number;
  version: string;
  succeeded: boolean;
  reported_at: string | null;
  reported_version: string | null;
  /** The device's state in the rollout and its wave. */
  state?: DeviceState;
  wave?: number;
}

/** One change of a device's state in a rollout. */
export interface StateChange {
  state: DeviceState;
  at: string;
  message: string | null;
}

/** `GET tenants/:tenant/devices/:mac/rollouts`: a rollout that targets the device, with the device's history in it. */
export interface DeviceRolloutHistory {
  rollout_id: number;
  rollout_name: string;
  rollout_status: RolloutStatus;
  version: string;
  wave: number;
  state: DeviceState;
  attempts: number;
  failure_message: string | null;
  reported_version: string | null;
  updated_at: string;
  history: StateChange[];
}

export interface DeviceDetail extends Device {
  groups: GroupRef[];
  rollouts: DeviceRollout[];
}

export interface FleetSummary {
  devices: number;
  seen_last_hour: number;
  seen_last_day: number;
  versions: { firmware_version: string; device_type: string; devices: number; seen_last_day: number }[];
  versions_total: number;
  at: string;
}

export interface Firmware {
  id: number;
  version: string;
  device_type: string;
  size: number;
  md5: string;
  sha256: string;
  cid: string;
  created_at: string;
}

export interface Group {
  id: number;
  name: string;
  members: number;
  created_at: string;
}

export interface GroupDetail extends Group {
  member_macs: Page<{ mac: string; registered: boolean }>;
}

export const ROLLOUT_STATUSES = ['draft', 'active', 'paused', 'finished', 'cancelled'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

export type { DeviceState, StateCounts };

/** A wave's progress: `waiting` (not started), `running` (started, below its success threshold), `passed`. */
export type WaveStatus = 'waiting' | 'running' | 'passed';

export interface Wave {
  wave: number;
  /** Its cumulative bound as planned: `"10%"` or a whole number of devices. */
  bound: string;
  status: WaveStatus;
  started_at: string | null;
  devices: StateCounts;
}

export type Approval = 'auto' | 'manual';

export interface Rollout {
  id: number;
  name: string;
  status: RolloutStatus;
  firmware_id: number;
  group_id: number;
  priority: number;
  start_date: string;
  downgrade: boolean;
  targeted: number;
  /** Confirmed devices. */
  updated: number;
  /** Devices the rollout still waits for: targeted − confirmed − failed − fell_back. */
  pending: number;
  last_activity_at: string | null;
  /** Devices per state, all waves. */
  devices: StateCounts;
  waves?: Wave[];
  current_wave?: number;
  /** Shares 0..1. */
  success_threshold?: number;
  error_threshold?: number | null;
  approval?: Approval;
  awaiting_approval?: boolean;
  /** Why the rollout paused itself; `null` when it did not (cleared on resume). */
  pause_reason?: string | null;
  finished?: boolean;
}

/** `POST …/rollouts/:id/retry`. */
export interface RetryResult {
  retried: number;
  rollout: Rollout;
}

/** A targeted device of a rollout: `GET …/rollouts/:id/devices`. */
export interface RolloutDevice {
  mac: string;
  name: string;
  wave: number;
  state: DeviceState;
  attempts: number;
  updated_at: string;
  failure_message: string | null;
}

export interface LedgerEntry {
  seq: number;
  tenant_id: number;
  type: string;
  subject: string;
  payload: unknown;
  created_at: string;
  actor: string | null;
  prev_hash: string;
  hash: string;
}

export interface LedgerVerify {
  ok: boolean;
  entries: number;
  head: string;
  first_break: { seq: number; reason: string } | null;
}
