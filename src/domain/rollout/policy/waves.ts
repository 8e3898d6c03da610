import type { StateCounts } from './device-states.js';

/** Most waves a rollout may have. */
export const MAX_WAVES = 20;

/**
 * A wave bound as written: `"10%"` (the first 10 % of the devices targeted at start, rounded up)
 * or a whole number of devices (`"50"`: the first 50). Bounds are cumulative, in the rollout's
 * stable order of devices (by device id); the last wave always also takes every device beyond its
 * bound and every device that becomes a target later.
 */
export type WaveBound = string;

/** What an operator gave as waves is wrong: the text says what, in words the API and the console both show. */
export interface WavePlanError {
  message: string;
  /** The 1-based wave it is about, if one. */
  wave?: number;
}

/**
 * The one reader of a wave plan, for the operator API and the console alike (docs/decisions.md §10):
 * 1 to {@link MAX_WAVES} bounds, each a share `"<p>%"` (0 < p ≤ 100, up to two decimals) or a whole
 * number of devices ≥ 1 (a number or digit text); cumulative, so none below the one before it of
 * the same kind (a share after a count, or a count after a share, is compared at start, when the
 * number of targets is known: a bound below the one before then ends where that one did).
 * @returns the bounds in canonical text (`"10%"`, `"50"`), or what is wrong.
 */
export function parseWavePlan(input: readonly unknown[]): { bounds: WaveBound[] } | { error: WavePlanError } {
  if (input.length < 1 || input.length > MAX_WAVES) {
    return { error: { message: `waves must list 1 to ${MAX_WAVES} wave bounds, such as 10% then 100%; this lists ${input.length}` } };
  }
  const bounds: WaveBound[] = [];
  let lastShare = 0;
  let lastCount = 0;
  for (const [index, item] of input.entries()) {
    const wave = index + 1;
    const text = typeof item === 'number' ? String(item) : typeof item === 'string' ? item.trim() : (JSON.stringify(item) ?? String(item));
    const named = `wave ${wave} ("${text}")`;
    const share = /^(\d{1,3}(?:\.\d{1,2})?)%$/.exec(text);
    if (share) {
      const value = Number(share[1]);
      if (value <= 0 || value > 100) return { error: { wave, message: `${named} must be a share above 0% and at most 100%` } };
      if (value < lastShare)
        return {
          error: { wave, message: `${named} is below the wave before it: each wave counts the devices of the waves before it too` },
        };
      lastShare = value;
      bounds.push(`${value}%`);
    } else if (/^\d{1,9}$/.test(text) && Number(text) >= 1) {
      const value = Number(text);
      if (value < lastCount)
        return {
          error: { wave, message: `${named} is below the wave before it: each wave counts the devices of the waves before it too` },
        };
      lastCount = value;
      bounds.push(String(value));
    } else {
      return { error: { wave, message: `${named} is neither a share like "10%" nor a whole number of devices like 50` } };
    }
  }
  return { bounds };
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
 * Judges one wave: `passed` when confirmed / (targeted − skipped) ≥ `successThreshold` (or the wave has no
 * device), `overErrors` when (failed + fell_back) / (targeted − skipped) > `errorThreshold`.
 * @param errorThreshold `null`: never over.
 */
export function judgeWave(counts: StateCounts, successThreshold: number, errorThreshold: number | null): WaveJudgement {
  // Skipped devices will never be updated by the rollout: the shares are of the others.
  const size = counts.targeted - counts.skipped;
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
