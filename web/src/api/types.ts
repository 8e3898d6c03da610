/** Answers of the operator API, as `openapi/operator.json` documents them. */

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

export interface GroupRef {
  id: number;
  name: string;
}

/** A rollout that targets a device, and what the device reported for it. */
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
  updated: number;
  pending: number;
  last_activity_at: string | null;
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
