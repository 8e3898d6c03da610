import { InvalidArgumentError, Option, type Command } from 'commander';
import { canonicalIdentifier } from '#src/platform/common/device-identifier.js';
import type { OperatorRolloutResponse } from '#src/operator/dto/rollout.dto.js';
import { deviceRolloutStateResponse, rolloutResponse } from '#src/operator/operator-responses.js';
import { FleetService } from '#src/domain/rollout/fleet.service.js';
import { RolloutPlanService } from '#src/domain/rollout/rollout-plan.service.js';
import { RolloutProgressService, type RolloutView } from '#src/domain/rollout/rollout-progress.service.js';
import { DDI_ACTION_TYPES, ROLLOUT_APPROVALS, type DdiActionType, type RolloutApproval } from '#src/domain/rollout/rollout.entity.js';
import { DEVICE_STATES } from '#src/domain/rollout/policy/device-states.js';
import { OFFER_WHEN, type OfferWhen } from '#src/domain/rollout/policy/decision.js';
import { ABORT_ACTIONS, ABORT_FAILURES } from '#src/domain/rollout/policy/abort.js';
import { ROLLBACK_SCOPES } from '#src/domain/rollout/policy/rollback.js';
import { TIMED_STATES } from '#src/domain/rollout/policy/timeouts.js';
import type { DeviceRolloutState } from '#src/domain/rollout/device-state.repository.js';
import { example, jsonOption, naming, positiveInt, run, tenantId, tenantOption } from './command-kit.js';
import { table } from './output.js';
import { CliError } from './cli-context.js';

/** A share for a threshold: `0.8` or `80%`. */
const share = (name: string) => (text: string) => {
  const percent = /^(\d{1,3}(?:\.\d+)?)%$/.exec(text.trim());
  const value = percent ? Number(percent[1]) / 100 : /^\d*\.?\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!(value >= 0 && value <= 1)) throw new InvalidArgumentError(`${name} must be a share from 0 to 1, or a percentage like 80%`);
  return value;
};

/** A duration: `2d`, `3h`, `90m`, `45s` or a number of seconds; whole seconds. */
const duration = (name: string) => (text: string) => {
  const m = /^(\d{1,7})([dhms]?)$/.exec(text.trim());
  const seconds = m ? Number(m[1]) * { d: 86400, h: 3600, m: 60, s: 1, '': 1 }[m[2] as 'd' | 'h' | 'm' | 's' | ''] : NaN;
  if (!(seconds >= 1)) throw new InvalidArgumentError(`${name} must be a duration such as 3h, 90m or 600 (seconds)`);
  return seconds;
};

/** A number for a ramp option (checked with the ramp's other fields by the one ramp reader). */
const number = (name: string) => (text: string) => {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value)) throw new InvalidArgumentError(`${name} must be a number`);
  return value;
};

/**
 * One `--abort` criterion, `<failure>:<percent>%:min=<finished>:<action>` (`failed:10%:min=20:pause`),
 * as the operator API's criterion; its values are checked by the one reader of criteria (policy/abort.ts).
 */
const abortCriterion = (text: string, previous: unknown[] = []): unknown[] => {
  const m = /^([a-z_]+):(\d{1,3}(?:\.\d+)?)%?:min=(\d{1,9}):([a-z]+)$/.exec(text.trim());
  if (!m) {
    throw new InvalidArgumentError(
      `--abort must read <failure>:<percent>%:min=<finished>:<action>, such as failed:10%:min=20:pause ` +
        `(failure: ${ABORT_FAILURES.join(', ')}; action: ${ABORT_ACTIONS.join(', ')})`,
    );
  }
  return [...previous, { failure: m[1], threshold_percentage: Number(m[2]), min_finished: Number(m[3]), action: m[4] }];
};

/**
 * One `--rollback-when` trigger: `5%` (a share of the targets) or `3` (a number of devices), added
 * to the operator API's rollback policy; checked by the one reader of policies (policy/rollback.ts).
 */
function rollbackTrigger(value: string, previous: { failed_count?: number; failed_percentage?: number } = {}) {
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('--rollback-when must read <percent>% or <devices>, such as 5% or 3');
  return m[2] === '%' ? { ...previous, failed_percentage: Number(m[1]) } : { ...previous, failed_count: Number(m[1]) };
}

/** One `--timeout <state>=<duration>` (`offered=1h`), added to the operator API's timeouts. */
const timeoutOption = (text: string, previous: Record<string, number> = {}): Record<string, number> => {
  const m = /^([a-z_]+)=(.+)$/.exec(text.trim());
  if (!m || !(TIMED_STATES as readonly string[]).includes(m[1])) {
    throw new InvalidArgumentError(`--timeout must read <state>=<duration> with a state of ${TIMED_STATES.join(', ')}, such as offered=1h`);
  }
  return { ...previous, [m[1]]: duration(`--timeout ${m[1]}`)(m[2]) };
};

/** Collects a repeated option's values. */
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `rollout show`: the plan, its state, and a table of the waves with their devices per state. */
function showRollout(r: RolloutView): string {
  const lines = [
    `rollout ${r.id} "${r.name}": ${r.status}, firmware ${r.firmwareId}, group ${r.groupId}, priority ${r.priority}, start ${r.startDate}`,
    `targeted ${r.targeted}, confirmed ${r.confirmed}, unsettled ${r.unsettled}, skipped ${r.skipped}, last activity ${r.lastActivity ?? 'none'}`,
    r.offerWhen === 'different'
      ? 'offered to every target not already running its version (offer when different)'
      : `offered to targets on an older version${r.downgrade ? ' or a newer one (downgrade)' : ' (offer when newer: anti-rollback)'}`,
    ...(r.notApplicable + r.notRegistered > 0
      ? [`not targeted: not applicable ${r.notApplicable} (other device type), not registered ${r.notRegistered}`]
      : []),
    `waves ${r.waves.map((w) => w.bound).join(', ')}; success threshold ${pct(r.successThreshold)}, error threshold ` +
      `${r.errorThreshold === null ? 'none' : pct(r.errorThreshold)}, approval ${r.approval}; current wave ${r.currentWave}` +
      (r.awaitingApproval ? ` (passed; waiting for approval: firmledger rollout approve ${r.id})` : ''),
    `hawkBit DDI devices take it ${r.ddiActionType}`,
    r.windows.length === 0
      ? 'maintenance windows: none (always open)'
      : `maintenance windows: ${r.windows.map((w) => `"${w.cron}" ${w.timeZone} for ${w.durationSeconds}s`).join('; ')}; ` +
        (r.windowOpen ? `open now, closes ${r.windowClosesAt ?? '?'}` : 'closed now') +
        `, next opens ${r.nextWindowAt ?? 'never'}`,
    r.ramp === null
      ? 'ramp: none'
      : `ramp: ${r.ramp.basePerMinute} new offers a minute, ×${r.ramp.incrementFactor} every ${r.ramp.incrementEvery.count} ` +
        `${r.ramp.incrementEvery.criterion}, at most ${r.ramp.maximumPerMinute} a minute`,
  ];
  lines.push(
    r.abortCriteria.length === 0
      ? 'abort criteria: none'
      : `abort criteria: ${r.abortCriteria
          .map((c) => `${c.action} when ${c.failure} reaches ${c.thresholdPercentage}% of at least ${c.minFinished} finished`)
          .join('; ')}`,
    TIMED_STATES.some((state) => r.timeouts[state] !== null)
      ? `timeouts: ${TIMED_STATES.filter((state) => r.timeouts[state] !== null)
          .map((state) => `${state} ${r.timeouts[state]}s`)
          .join(', ')}`
      : 'timeouts: none',
  );
  if (r.rollback !== null) {
    const triggers = [
      r.rollback.failedPercentage !== null ? `${r.rollback.failedPercentage}% of the targets` : null,
      r.rollback.failedCount !== null ? `${r.rollback.failedCount} device${r.rollback.failedCount === 1 ? '' : 's'}` : null,
    ].filter((t) => t !== null);
    lines.push(
      `rollback: to firmware ${r.rollback.firmwareId} (${r.rollback.scope === 'all' ? 'every device that took it' : 'the devices that failed'}) ` +
        `once ${triggers.join(' or ')} failed, fell back or timed out`,
    );
  }
  if (r.rollbackRolloutId !== null) lines.push(`rolled back by rollout ${r.rollbackRolloutId}`);
  if (r.rollbackOf !== null) lines.push(`rolls back rollout ${r.rollbackOf}`);
  if (r.pauseReason !== null) lines.push(`${r.status === 'cancelled' ? 'cancelled' : 'paused'} by itself: ${r.pauseReason}`);
  const rows: Record<string, string | number>[] = r.waves.map((w) => ({
    wave: String(w.wave),
    bound: w.bound,
    status: w.status,
    ...w.devices,
  }));
  rows.push({ wave: 'all', bound: '', status: '', ...r.devices });
  lines.push('', table(rows, ['wave', 'bound', 'status', 'targeted', ...DEVICE_STATES]));
  return lines.join('\n');
}

/** `rollout history`: a device's state in each rollout and every change. */
function showHistory(rows: DeviceRolloutState[]): string {
  if (rows.length === 0) return '(no rollout has a state for this device)';
  return rows
    .map((row) =>
      [
        `rollout ${row.rolloutId} "${row.rolloutName}" (${row.rolloutStatus}) to ${row.version}: ${row.state.state}, wave ${row.state.wave}, ` +
          `attempts ${row.state.attempts}${row.state.failureMessage ? `, ${row.state.failureMessage}` : ''}`,
        ...row.history.map((t) => `  ${new Date(t.at).toISOString()}  ${t.state.padEnd(11)}${t.message ? `  ${t.message}` : ''}`),
      ].join('\n'),
    )
    .join('\n');
}

/** The `--window` options as the operator API's windows; `--window-duration` is required with them. */
function windowsOf(o: { window?: string[]; windowDuration?: number; tz: string }): unknown[] | undefined {
  if (!o.window || o.window.length === 0) return undefined;
  if (o.windowDuration === undefined) throw new CliError('--window needs --window-duration, such as 3h');
  return o.window.map((cron) => ({ cron, duration_seconds: o.windowDuration, time_zone: o.tz }));
}

/** The `--ramp-*` options as the operator API's ramp (checked by the one ramp reader); none without `--ramp-base`. */
function rampOf(o: {
  rampBase?: number;
  rampFactor?: number;
  rampEveryConfirmed?: number;
  rampEveryOffered?: number;
  rampMax?: number;
}): unknown {
  const given = [o.rampBase, o.rampFactor, o.rampEveryConfirmed, o.rampEveryOffered, o.rampMax].some((v) => v !== undefined);
  if (!given) return undefined;
  if (o.rampBase === undefined) throw new CliError('the --ramp-* options need --ramp-base');
  if ((o.rampEveryConfirmed === undefined) === (o.rampEveryOffered === undefined)) {
    throw new CliError('a ramp needs one of --ramp-every-confirmed or --ramp-every-offered');
  }
  return {
    base_per_minute: o.rampBase,
    increment_factor: o.rampFactor ?? 2,
    increment_every: o.rampEveryConfirmed !== undefined ? { confirmed: o.rampEveryConfirmed } : { offered: o.rampEveryOffered },
    maximum_per_minute: o.rampMax ?? 1000,
  };
}

const pct = (value: number): string => `${Math.round(value * 1000) / 10}%`;

function macOf(text: string): string {
  const identifier = canonicalIdentifier(text);
  if (identifier === null) throw new InvalidArgumentError(`${text} is not a device identifier (a hardware address or a controller id)`);
  return identifier;
}

const rolloutColumns: (keyof OperatorRolloutResponse)[] = [
  'id',
  'name',
  'status',
  'firmware_id',
  'group_id',
  'priority',
  'start_date',
  'targeted',
  'confirmed',
  'unsettled',
];

/** What each lifecycle command does, for its help. */
const ACTIONS = {
  start: 'start a draft rollout: devices of its group are offered its firmware from its start date',
  pause: 'pause an active rollout: devices are no longer offered it until it is resumed',
  resume: 'resume a paused rollout',
  cancel: 'cancel a rollout for good (a draft, active or paused one)',
} as const;

/** `firmledger rollout create|start|pause|resume|cancel|show|approve|retry|history|list`: planned firmware updates. */
export function registerRolloutCommands(program: Command): void {
  const rollout = example(
    program.command('rollout').description('rollouts: planned firmware updates'),
    'firmledger rollout create --tenant acme --name "1.1.0 to field test" --firmware 1 --group field-test --start "2026-01-01 00:00:00"',
    'firmledger rollout start 1 --tenant acme',
    'firmledger rollout list --tenant acme',
  );
  example(
    rollout
      .command('create')
      .description('plan a rollout of one firmware to one group (status draft; "rollout start" starts it)')
      .addOption(tenantOption())
      .requiredOption('--name <name>', 'rollout name')
      .requiredOption('--firmware <id>', 'firmware id', positiveInt('--firmware'))
      .requiredOption('--group <group>', 'group id or name')
      .option('--priority <n>', '1 is most urgent', positiveInt('--priority'), 1)
      .requiredOption('--start <date>', 'start date, "YYYY-MM-DD HH:MM:SS" UTC')
      .option('--downgrade', 'offer even to devices on a newer version')
      .addOption(
        new Option(
          '--offer-when <rule>',
          'which targets are offered it: newer (only devices on an older version) or different (every device not running it)',
        )
          .choices(OFFER_WHEN)
          .default('newer'),
      )
      .option(
        '--wave <bound>',
        'a cumulative wave bound, "10%" or a number of devices (repeat: --wave 10% --wave 30% --wave 100%)',
        collect,
      )
      .option(
        '--success-threshold <share>',
        'confirmed share of a wave that starts the next one (0.9 or 90%)',
        share('--success-threshold'),
      )
      .option(
        '--error-threshold <share>',
        'failed and fell-back share of a wave above which the rollout pauses itself',
        share('--error-threshold'),
      )
      .addOption(new Option('--approval <mode>', 'how the next wave starts').choices(ROLLOUT_APPROVALS).default('auto'))
      .addOption(
        new Option('--ddi-action-type <type>', 'how hawkBit DDI devices are told to take it (download-only: download, do not install)')
          .choices(DDI_ACTION_TYPES)
          .default('forced'),
      )
      .option(
        '--window <cron>',
        'a maintenance window opening at each time of this 5-field cron expression (repeat for more); with --window-duration and --tz',
        collect,
      )
      .option('--window-duration <duration>', 'how long each window stays open: 3h, 90m, or seconds', duration('--window-duration'))
      .option('--tz <zone>', 'IANA time zone of the windows’ cron expressions', 'UTC')
      .option('--ramp-base <n>', 'ramp: new offers a minute at first (1 to 1000)', number('--ramp-base'))
      .option('--ramp-factor <x>', 'ramp: factor the rate grows by at each increment (1.1 to 5)', number('--ramp-factor'))
      .option(
        '--ramp-every-confirmed <n>',
        'ramp: grow the rate each time this many more devices confirmed',
        number('--ramp-every-confirmed'),
      )
      .option(
        '--ramp-every-offered <n>',
        'ramp: grow the rate each time this many more devices were offered',
        number('--ramp-every-offered'),
      )
      .option('--ramp-max <n>', 'ramp: most new offers a minute (up to 1000)', number('--ramp-max'))
      .option(
        '--abort <criterion>',
        'an abort criterion <failure>:<percent>%:min=<finished>:<action> (repeat for more), e.g. failed:10%:min=20:pause: ' +
          `once 20 devices finished, pause when 10% of them failed (failure: ${ABORT_FAILURES.join(', ')}; action: ${ABORT_ACTIONS.join(', ')})`,
        abortCriterion,
      )
      .option(
        '--timeout <state=duration>',
        `a timeout: a device that stays in ${TIMED_STATES.join(', ')} longer is timed_out (repeat: --timeout offered=1h --timeout installed=30m)`,
        timeoutOption,
      )
      .option(
        '--rollback-to <firmware>',
        'rollback policy: the firmware (marked as a rollback target) to bring devices back to',
        positiveInt('--rollback-to'),
      )
      .option(
        '--rollback-when <trigger>',
        'rollback policy: fire once this share of the targets (5%) or this many devices (3) failed, fell back or timed out (repeat for both)',
        rollbackTrigger,
      )
      .addOption(
        new Option('--rollback-scope <scope>', 'rollback policy: roll back the devices that failed, or all that took it').choices(
          ROLLBACK_SCOPES,
        ),
      )
      .addOption(jsonOption())
      .action(
        (o: {
          tenant: string;
          name: string;
          firmware: number;
          group: string;
          priority: number;
          start: string;
          downgrade?: boolean;
          offerWhen: OfferWhen;
          wave?: string[];
          successThreshold?: number;
          errorThreshold?: number;
          approval: RolloutApproval;
          ddiActionType: DdiActionType;
          window?: string[];
          windowDuration?: number;
          tz: string;
          rampBase?: number;
          rampFactor?: number;
          rampEveryConfirmed?: number;
          rampEveryOffered?: number;
          rampMax?: number;
          abort?: unknown[];
          timeout?: Record<string, number>;
          rollbackTo?: number;
          rollbackWhen?: { failed_count?: number; failed_percentage?: number };
          rollbackScope?: string;
          json?: boolean;
        }) =>
          run(
            async (get) =>
              naming(
                get(RolloutPlanService).create({
                  tenantId: await tenantId(get, o.tenant),
                  name: o.name,
                  firmwareId: o.firmware,
                  group: o.group,
                  priority: o.priority,
                  startDate: o.start,
                  downgrade: !!o.downgrade,
                  offerWhen: o.offerWhen,
                  waves: o.wave,
                  successThreshold: o.successThreshold,
                  errorThreshold: o.errorThreshold,
                  approval: o.approval,
                  ddiActionType: o.ddiActionType,
                  windows: windowsOf(o),
                  ramp: rampOf(o),
                  abortCriteria: o.abort,
                  timeouts: o.timeout,
                  rollback:
                    o.rollbackTo === undefined && o.rollbackWhen === undefined && o.rollbackScope === undefined
                      ? undefined
                      : { firmware_id: o.rollbackTo, ...o.rollbackWhen, ...(o.rollbackScope ? { scope: o.rollbackScope } : {}) },
                }),
                { Firmware: o.firmware },
              ),
            !!o.json,
            (r) =>
              `rollout ${r.id} "${r.name}" created (${r.status}); start it with: firmledger rollout start ${r.id} --tenant ${o.tenant}`,
            rolloutResponse,
          ),
      ),
    'firmledger rollout create --tenant acme --name "1.1.0 to field test" --firmware 1 --group field-test --priority 1 --start "2026-01-01 00:00:00"',
    'firmledger rollout create --tenant acme --name "1.1.0 in waves" --firmware 1 --group fleet --start "2026-01-01 00:00:00" --wave 10% --wave 30% --wave 100% --success-threshold 80% --error-threshold 20% --approval manual',
    'firmledger rollout create --tenant acme --name "1.1.0 at night" --firmware 1 --group fleet --start "2026-01-01 00:00:00" --window "0 2 * * *" --window-duration 3h --tz Europe/Berlin --ramp-base 10 --ramp-factor 2 --ramp-every-confirmed 100 --ramp-max 1000',
    'firmledger rollout create --tenant acme --name "1.1.0 guarded" --firmware 1 --group fleet --start "2026-01-01 00:00:00" --abort failed:10%:min=20:pause --abort all:30%:min=50:cancel --timeout offered=1h --timeout installed=30m',
    'firmledger rollout create --tenant acme --name "2.0.0 with a way back" --firmware 2 --group fleet --start "2026-01-01 00:00:00" --rollback-to 1 --rollback-when 5% --rollback-scope failed',
  );
  for (const action of ['start', 'pause', 'resume', 'cancel'] as const) {
    example(
      rollout
        .command(`${action} <id>`)
        .description(ACTIONS[action])
        .addOption(tenantOption())
        .addOption(jsonOption())
        .action((id: string, o: { tenant: string; json?: boolean }) => {
          const rolloutId = positiveInt('rollout id')(id);
          return run(
            async (get) => naming(get(RolloutPlanService).apply(await tenantId(get, o.tenant), rolloutId, action), { Rollout: rolloutId }),
            !!o.json,
            (r) => `rollout ${r.id} is ${r.status}`,
            rolloutResponse,
          );
        }),
      `firmledger rollout ${action} 1 --tenant acme`,
    );
  }
  example(
    rollout
      .command('show <id>')
      .description('one rollout with its progress: per wave, devices in each state; the reason of an automatic pause')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((id: string, o: { tenant: string; json?: boolean }) => {
        const rolloutId = positiveInt('rollout id')(id);
        return run(
          async (get) => naming(get(RolloutProgressService).get(await tenantId(get, o.tenant), rolloutId), { Rollout: rolloutId }),
          !!o.json,
          showRollout,
          rolloutResponse,
        );
      }),
    'firmledger rollout show 1 --tenant acme',
  );
  example(
    rollout
      .command('approve <id>')
      .description('start the next wave of a rollout with manual approval whose current wave passed its success threshold')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((id: string, o: { tenant: string; json?: boolean }) => {
        const rolloutId = positiveInt('rollout id')(id);
        return run(
          async (get) => naming(get(RolloutPlanService).approve(await tenantId(get, o.tenant), rolloutId), { Rollout: rolloutId }),
          !!o.json,
          (r) => `rollout ${r.id}: wave ${r.currentWave} started`,
          rolloutResponse,
        );
      }),
    'firmledger rollout approve 1 --tenant acme',
  );
  example(
    rollout
      .command('retry <id>')
      .description('offer the rollout again to its failed, fell-back and timed-out devices (back to pending)')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((id: string, o: { tenant: string; json?: boolean }) => {
        const rolloutId = positiveInt('rollout id')(id);
        return run(
          async (get) => naming(get(RolloutPlanService).retry(await tenantId(get, o.tenant), rolloutId), { Rollout: rolloutId }),
          !!o.json,
          ({ retried, rollout: r }) =>
            `rollout ${r.id}: ${retried} devices back to pending; it is ${r.status}` +
            (r.status === 'paused' ? ` (resume it: firmledger rollout resume ${r.id})` : ''),
          ({ retried, rollout: r }) => ({ retried, rollout: rolloutResponse(r) }),
        );
      }),
    'firmledger rollout retry 1 --tenant acme',
  );
  example(
    rollout
      .command('history')
      .argument('<device>', 'the device: a hardware address in any notation, or a controller id', macOf)
      .description("a device's state in each rollout, with every change's time and message")
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((mac: string, o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(FleetService).deviceRollouts(await tenantId(get, o.tenant), macOf(mac)),
          !!o.json,
          showHistory,
          (rows) => rows.map(deviceRolloutStateResponse),
        ),
      ),
    'firmledger rollout history 02:F1:ED:00:00:01 --tenant acme',
  );
  example(
    rollout
      .command('list')
      .description('rollouts of a tenant by id, with their progress: targeted / confirmed / unsettled')
      .addOption(tenantOption())
      .addOption(jsonOption())
      .action((o: { tenant: string; json?: boolean }) =>
        run(
          async (get) => get(RolloutProgressService).list(await tenantId(get, o.tenant)),
          !!o.json,
          (rows) => table(rows.map(rolloutResponse), rolloutColumns),
          (rows) => rows.map(rolloutResponse),
        ),
      ),
    'firmledger rollout list --tenant acme',
  );
}
