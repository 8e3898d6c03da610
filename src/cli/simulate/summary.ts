/** The steps of a device's cycle, in order; failures are counted by step. */
export const SIMULATION_STEPS = [
  'login',
  'register',
  'next-rollout',
  'ledger-lookup',
  'download',
  'verify',
  'report-success',
  'report-failure',
  'confirm',
] as const;

/** One step of a device's cycle. */
export type SimulationStep = (typeof SIMULATION_STEPS)[number];

/** One round of a run (`--rounds`): the devices that asked in it and what they were told. */
export interface RoundSummary {
  /** 1-based. */
  round: number;
  /** Devices that ran a cycle in this round (round 1: all; later: those still waiting). */
  asked: number;
  /** Devices offered a rollout in this round (the next-rollout answer named one), whatever they did then. */
  offered: number;
  /** Devices updated in this round or an earlier one. */
  updated: number;
  /** Devices told there is nothing for them now (`{}`) in this round: they poll again in the next one, if any. */
  waiting: number;
}

/** Outcome of a simulation run. */
export interface SimulateSummary {
  /** Devices simulated. `devices = updated + upToDate + fellBack + reportedFailure + silent + sum(failures)`. */
  devices: number;
  /** Devices that downloaded, verified and reported a rollout, then asked again on its version (confirmed). */
  updated: number;
  /** Devices told to fall back (`--fallback-rate`): they reported success, then asked again on their old version. */
  fellBack?: number;
  /** Devices told to fail (`--fail-rate`): they sent a failure report after the download. */
  reportedFailure?: number;
  /** Devices told to go silent (`--silent-rate`): offered a rollout, they downloaded it and sent no report. */
  silent?: number;
  /** Devices told there is no rollout (`{}`) in their last round (with `--rounds`: still waiting at the end). */
  upToDate: number;
  /** Per-round counts, one entry per round run (a run ends early when no device is waiting). */
  rounds: RoundSummary[];
  /** Failed devices by the step that failed; every step is present, 0 when none failed. */
  failures: Record<string, number>;
  /** HTTP requests sent (all components, including retries). */
  requests: number;
  /** Wall time of the run. */
  seconds: number;
  /** `requests / seconds`. */
  requestsPerSecond: number;
  /** The first failure reason seen per step, for diagnosis (e.g. `HTTP 401 Invalid credentials`). */
  failureExamples?: Record<string, string>;
  /** Conditions that shaped the run (e.g. devices sharing one client IP). */
  notes?: string[];
}

/** Failure counters with every step at 0. */
export function emptyFailures(): Record<SimulationStep, number> {
  return Object.fromEntries(SIMULATION_STEPS.map((step) => [step, 0])) as Record<SimulationStep, number>;
}

/** Sum of the failure counters. */
export function totalFailures(failures: Record<string, number>): number {
  return Object.values(failures).reduce((sum, n) => sum + n, 0);
}

/**
 * Human-readable multi-line summary: devices with updated / up to date / failed, the failed
 * ones by step (with the first reason when known), requests, seconds and requests per second.
 */
export function formatSummary(s: SimulateSummary): string {
  const failed = totalFailures(s.failures);
  const width = String(Math.max(s.devices, s.updated, s.upToDate, failed)).length;
  const num = (n: number): string => String(n).padStart(width);
  const lines = [
    `Devices simulated: ${s.devices}`,
    `  updated:     ${num(s.updated)}`,
    `  up to date:  ${num(s.upToDate)}`,
    ...(s.fellBack ? [`  fell back:   ${num(s.fellBack)}`] : []),
    ...(s.reportedFailure ? [`  reported a failure: ${s.reportedFailure}`] : []),
    ...(s.silent ? [`  silent:      ${num(s.silent)}`] : []),
    `  failed:      ${num(failed)}`,
  ];
  const steps = [...SIMULATION_STEPS, ...Object.keys(s.failures).filter((k) => !(SIMULATION_STEPS as readonly string[]).includes(k))];
  for (const step of steps) {
    const count = s.failures[step] ?? 0;
    if (count === 0) continue;
    const example = s.failureExamples?.[step];
    lines.push(`    ${`${step}:`.padEnd(16)}${count}${example ? `  (first: ${example})` : ''}`);
  }
  if (s.rounds.length > 1) {
    lines.push(`Rounds: ${s.rounds.length}`);
    for (const round of s.rounds) lines.push(`  ${formatRound(round, s.devices)}`);
  }
  lines.push(`Requests: ${s.requests} in ${s.seconds.toFixed(2)} s (${s.requestsPerSecond.toFixed(1)} requests/s)`);
  for (const note of s.notes ?? []) lines.push(`Note: ${note}`);
  return lines.join('\n');
}

/** One round as a line: `round 2: 3 offered, 5/10 updated so far, 4 still waiting (7 asked)`. Pure. */
export function formatRound(r: RoundSummary, devices: number): string {
  return `round ${r.round}: ${r.offered} offered, ${r.updated}/${devices} updated so far, ${r.waiting} still waiting (${r.asked} asked)`;
}
