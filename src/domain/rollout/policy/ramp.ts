/**
 * The ramp of a rollout (docs/decisions.md §10.1), as AWS IoT Jobs' exponential rollout: at most
 * `basePerMinute` new offers a minute at first; each time `incrementEvery` more devices were
 * offered the rollout (or confirmed it), the rate is multiplied by `incrementFactor`, up to
 * `maximumPerMinute`. A new offer is one to a device without a state in the rollout or `pending`
 * there; devices already offered keep getting it. Pure: the allowance per minute is counted in
 * the database (RolloutRepository.takeOffer), so every instance takes from the same one.
 */

/** Bounds of a ramp (AWS IoT Jobs' `exponentialRate`). */
export const RAMP_LIMITS = {
  perMinute: { min: 1, max: 1000 },
  factor: { min: 1.1, max: 5 },
  every: { min: 1, max: 1_000_000 },
} as const;

/** What counts towards the next increment of the rate. */
export type RampCriterion = 'offered' | 'confirmed';

/** A ramp as stored and as the engine reads it. */
export interface RampPlan {
  /** New offers a minute at first, 1 to 1000. */
  basePerMinute: number;
  /** Factor the rate is multiplied by at each increment, 1.1 to 5. */
  incrementFactor: number;
  /** The rate increases each time this many more devices were offered the rollout, or confirmed it. */
  incrementEvery: { criterion: RampCriterion; count: number };
  /** Most new offers a minute, `basePerMinute` to 1000. */
  maximumPerMinute: number;
}

/** What is wrong with a ramp an operator gave: `field` is the API field the 400 names. */
export interface RampError {
  field: string;
  message: string;
}

/**
 * New offers a minute after `increments` increments: `basePerMinute × incrementFactor^increments`,
 * rounded down, at most `maximumPerMinute`.
 */
export function rampRate(plan: RampPlan, increments: number): number {
  const rate = Math.floor(plan.basePerMinute * Math.pow(plan.incrementFactor, Math.max(0, increments)) + 1e-9);
  return Math.min(plan.maximumPerMinute, Math.max(plan.basePerMinute, rate));
}

/**
 * The allowance of new offers in the current minute, given how many devices were offered the
 * rollout (new offers so far) and how many confirmed it: {@link rampRate} after one increment per
 * full `incrementEvery.count` of the plan's criterion.
 */
export function rampAllowance(plan: RampPlan, counts: { offered: number; confirmed: number }): number {
  const reached = plan.incrementEvery.criterion === 'offered' ? counts.offered : counts.confirmed;
  return rampRate(plan, Math.floor(reached / plan.incrementEvery.count));
}

/** The epoch minute of an instant (epoch ms): the unit the allowance is counted in. */
export function minuteOf(now: number): number {
  return Math.floor(now / 60_000);
}

const whole = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/**
 * Reads a ramp of the operator API: `{base_per_minute, increment_factor, increment_every:
 * {offered: N} | {confirmed: N}, maximum_per_minute}`.
 * @returns the plan, or what is wrong with which field (`ramp.base_per_minute`…).
 */
export function parseRamp(input: unknown): { ramp: RampPlan } | { error: RampError } {
  const fail = (field: string, message: string) => ({ error: { field: `ramp${field}`, message: `ramp${field} ${message}` } });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return fail('', 'must be an object {base_per_minute, increment_factor, increment_every, maximum_per_minute}');
  }
  const {
    base_per_minute: base,
    increment_factor: factor,
    increment_every: every,
    maximum_per_minute: maximum,
  } = input as Record<string, unknown>;
  const { perMinute, factor: factorLimits, every: everyLimits } = RAMP_LIMITS;
  if (!whole(base, perMinute.min, perMinute.max)) {
    return fail('.base_per_minute', `must be a whole number from ${perMinute.min} to ${perMinute.max}`);
  }
  if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < factorLimits.min || factor > factorLimits.max) {
    return fail('.increment_factor', `must be a number from ${factorLimits.min} to ${factorLimits.max}`);
  }
  const keys = typeof every === 'object' && every !== null && !Array.isArray(every) ? Object.keys(every) : [];
  const criterion = keys.length === 1 && (keys[0] === 'offered' || keys[0] === 'confirmed') ? keys[0] : null;
  if (criterion === null) return fail('.increment_every', 'must be {"offered": N} or {"confirmed": N}');
  const count = (every as Record<string, unknown>)[criterion];
  if (!whole(count, everyLimits.min, everyLimits.max)) {
    return fail(`.increment_every.${criterion}`, `must be a whole number from ${everyLimits.min} to ${everyLimits.max}`);
  }
  if (!whole(maximum, base, perMinute.max)) {
    return fail('.maximum_per_minute', `must be a whole number from base_per_minute (${base}) to ${perMinute.max}`);
  }
  return { ramp: { basePerMinute: base, incrementFactor: factor, incrementEvery: { criterion, count }, maximumPerMinute: maximum } };
}

/** The ramp stored with a rollout (JSON text of a {@link RampPlan}; `null`: none), remembered per text. */
const storedRamps = new Map<string, RampPlan>();

/** Reads a rollout's stored ramp. */
export function storedRampOf(text: string | null | undefined): RampPlan | null {
  if (!text) return null;
  let plan = storedRamps.get(text);
  if (plan === undefined) {
    plan = JSON.parse(text) as RampPlan;
    if (storedRamps.size < 1000) storedRamps.set(text, plan);
  }
  return plan;
}
