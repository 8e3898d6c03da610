/**
 * The states of a targeted device in a rollout and the rules that move it (docs/decisions.md §10).
 * Pure functions: every device protocol's poll, report and download, and the confirmation sweep,
 * decide with these.
 */

/**
 * `pending` → `offered` (a next-rollout answer named the rollout) → `downloading` (the device
 * fetched its firmware) → `installed` (success reported) → `confirmed` (the device reported the
 * target version); or `failed` (failure report, or silent past the confirmation window) /
 * `fell_back` (after `installed`, it reported another version) / `timed_out` (longer than the
 * rollout's timeout of `offered`, `downloading` or `installed`, docs/decisions.md §10.2) / `skipped`
 * (the rollout will never update it: it runs a version that orders after the firmware's,
 * policy/decision.ts, docs/decisions.md §10.5).
 */
export const DEVICE_STATES = [
  'pending',
  'offered',
  'downloading',
  'installed',
  'confirmed',
  'failed',
  'fell_back',
  'timed_out',
  'skipped',
] as const;
export type DeviceState = (typeof DEVICE_STATES)[number];

/** How many devices are in each state, and how many there are in all (`targeted`). */
export type StateCounts = { targeted: number } & Record<DeviceState, number>;

/** Counts of zero devices. */
export function noDevices(): StateCounts {
  return {
    targeted: 0,
    pending: 0,
    offered: 0,
    downloading: 0,
    installed: 0,
    confirmed: 0,
    failed: 0,
    fell_back: 0,
    timed_out: 0,
    skipped: 0,
  };
}

/** States from which each state may be reached; anything else leaves the device where it is. */
export const REACHED_FROM: Record<Exclude<DeviceState, 'pending'>, readonly DeviceState[]> = {
  offered: ['pending'],
  downloading: ['pending', 'offered'],
  installed: ['pending', 'offered', 'downloading'],
  confirmed: ['pending', 'offered', 'downloading', 'installed'],
  fell_back: ['installed'],
  failed: ['pending', 'offered', 'downloading', 'installed'],
  timed_out: ['offered', 'downloading', 'installed'],
  skipped: ['pending', 'offered', 'downloading'],
};

/** States a retry sends back to `pending`. */
export const RETRIED_STATES: readonly DeviceState[] = ['failed', 'fell_back', 'timed_out'];

/** States that end an attempt: the rollout waits for nothing more from the device. */
export const SETTLED_STATES: readonly DeviceState[] = ['confirmed', 'failed', 'fell_back', 'timed_out', 'skipped'];

/**
 * What a version the device reports means for a rollout it reported success for (state
 * `installed`): the target version confirms the update; any other version means the device came
 * back on its old image (its bootloader fell back).
 */
export function afterInstalled(reportedVersion: string, targetVersion: string): 'confirmed' | 'fell_back' {
  return reportedVersion === targetVersion ? 'confirmed' : 'fell_back';
}

/** How a success report for `targetVersion` carrying `reportedVersion` leaves the device. */
export function afterSuccessReport(reportedVersion: string, targetVersion: string): 'confirmed' | 'installed' {
  return reportedVersion === targetVersion ? 'confirmed' : 'installed';
}
