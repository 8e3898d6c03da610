import type { StateCounts } from './device-state.js';

/** Most waves a rollout may have. */
export const MAX_WAVES = 20;

/**
 * A wave bound as written: `"10%"` (the first 10 % of the devices targeted at start, rounded up)
 * or a whole number of devices (`"50"`: the first 50). Bounds are cumulative, in the rollout's
 * stable order of devices (by device id); the last wave always also takes every device beyond its
 * bound and every device that joins the group later.
 */
export type WaveBound = string;

/**
 * Reads wave bounds from an operator: strings `"<p>%"` (0 < p ≤ 100, up to two decimals) or whole
 * numbers ≥ 1 (numbers or digit strings), 1 to {@link MAX_WAVES} of them.
 * @returns the bounds in canonical text, or a message naming what is wrong.
 */
export function parseWaves(input: readonly unknown[]): WaveBound[] | string {
  if (input.length < 1 || input.length > MAX_WAVES) return `waves must list 1 to ${MAX_WAVES} wave bounds`;
  const bounds: WaveBound[] = [];
  for (const item of input) {
    const text = typeof item === 'number' ? String(item) : typeof item === 'string' ? item.trim() : '';
    const percent = /^(\d{1,3}(?:\.\d{1,2})?)%$/.exec(text);
    if (percent) {
      const value = Number(percent[1]);
      if (value <= 0 || value > 100) return `wave bound ${text} must be a share above 0% and at most 100%`;
      bounds.push(`${value}%`);
    } else if (/^\d{1,9}$/.test(text) && Number(text) >= 1) {
      bounds.push(String(Number(text)));
    } else {
      return 'each wave must be a share like "10%" or a whole number of devices like 50';
    }
  }
  return bounds;
}

/**
 * Where each wave ends among `total` devices in the stable order: the number of devices in waves
 * 1..i, for each wave i. Bounds never shrink (a bound below the previous one ends where it did),
 * and the last wave ends at `total`.
 */
export function waveEnds(bounds: readonly WaveBound[], total: number): number[] {
  const ends: number[] = [];
  let previous = 0;
  for (const bound of bounds) {
    const end = bound.endsWith('%') ? Math.ceil((Number(bound.slice(0, -1)) / 100) * total - 1e-9) : Number(bound);
    previous = Math.max(previous, Math.min(end, total));
    ends.push(previous);
  }
  ends[ends.length - 1] = total;
  return ends;
}

/** The wave (1-based) of the device at `index` (0-based) in the stable order, given {@link waveEnds}. */
export function waveOf(index: number, ends: readonly number[]): number {
  const wave = ends.findIndex((end) => index < end);
  return wave === -1 ? ends.length : wave + 1;
}

/** What a wave's counts say against the rollout's thresholds. */
export interface WaveJudgement {
  /** The confirmed share reached the success threshold (an empty wave has). */
  passed: boolean;
  /** The failed and fell-back share is above the error threshold. */
  overErrors: boolean;
}

/**
 * Judges one wave: `passed` when confirmed / targeted ≥ `successThreshold` (or the wave has no
 * device), `overErrors` when (failed + fell_back) / targeted > `errorThreshold`.
 * @param errorThreshold `null`: never over.
 */
export function judgeWave(counts: StateCounts, successThreshold: number, errorThreshold: number | null): WaveJudgement {
  const size = counts.targeted;
  return {
    passed: size === 0 || counts.confirmed / size >= successThreshold - 1e-12,
    overErrors: errorThreshold !== null && size > 0 && (counts.failed + counts.fell_back) / size > errorThreshold + 1e-12,
  };
}

/** The text of an automatic pause, e.g. `wave 2: 41 of 200 devices failed or fell back (20.5%), over the error threshold 20%`. */
export function pauseReason(wave: number, counts: StateCounts, errorThreshold: number): string {
  const bad = counts.failed + counts.fell_back;
  return (
    `wave ${wave}: ${bad} of ${counts.targeted} devices failed or fell back (${percent(bad / counts.targeted)}), ` +
    `over the error threshold ${percent(errorThreshold)}`
  );
}

/** `0.205` → `20.5%`. */
export function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}
