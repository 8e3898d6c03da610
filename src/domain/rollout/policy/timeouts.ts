import type { DeviceState } from './device-states.js';

/**
 * Timeouts of a rollout (docs/decisions.md §10.2), as AWS IoT Jobs' `timeoutConfig` per step: a
 * device that stays `offered`, `downloading` or `installed` longer than the rollout's timeout of
 * that state is `timed_out` there. Pure: the states sweep (DeviceStateService) applies them.
 */

/** The states a timeout may be set for. */
export const TIMED_STATES = ['offered', 'downloading', 'installed'] as const satisfies readonly DeviceState[];
export type TimedState = (typeof TIMED_STATES)[number];

/** Bounds of a timeout, seconds: one minute to seven days. */
export const TIMEOUT_LIMITS = { min: 60, max: 7 * 24 * 3600 } as const;

/** A rollout's timeouts, seconds; `null`: none for that state. */
export type RolloutTimeouts = Record<TimedState, number | null>;

/** No timeouts. */
export function noTimeouts(): RolloutTimeouts {
  return { offered: null, downloading: null, installed: null };
}

/** What is wrong with timeouts an operator gave: `field` is the API field the 400 names. */
export interface TimeoutsError {
  field: string;
  message: string;
}

/**
 * Reads the timeouts of the operator API: `{offered?, downloading?, installed?}`, each whole
 * seconds from {@link TIMEOUT_LIMITS}.min to .max, or null (none).
 * @returns the timeouts, or what is wrong with which field (`timeouts.offered`…).
 */
export function parseTimeouts(input: unknown): { timeouts: RolloutTimeouts } | { error: TimeoutsError } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { error: { field: 'timeouts', message: 'timeouts must be an object {offered?, downloading?, installed?} of seconds' } };
  }
  const timeouts = noTimeouts();
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    if (!(TIMED_STATES as readonly string[]).includes(key)) {
      return { error: { field: `timeouts.${key}`, message: `timeouts.${key} is not a timeout: use ${TIMED_STATES.join(', ')}` } };
    }
    if (value === null || value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < TIMEOUT_LIMITS.min || value > TIMEOUT_LIMITS.max) {
      return {
        error: {
          field: `timeouts.${key}`,
          message: `timeouts.${key} must be whole seconds from ${TIMEOUT_LIMITS.min} to ${TIMEOUT_LIMITS.max} (7 days)`,
        },
      };
    }
    timeouts[key as TimedState] = value;
  }
  return { timeouts };
}

/** The message kept with a device that timed out, naming the timeout: `timed out: offered for more than 3600 s (timeouts.offered)`. */
export function timeoutMessage(state: TimedState, seconds: number): string {
  return `timed out: ${state} for more than ${seconds} s (timeouts.${state})`;
}
