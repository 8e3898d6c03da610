import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import {
  ABORT_ACTIONS,
  ABORT_FAILURES,
  LENGTH_UNIT_LABELS,
  LENGTH_UNITS,
  MAX_ABORT_CRITERIA,
  MAX_WINDOWS,
  NEW_ABORT,
  NEW_RAMP,
  NEW_ROLLBACK,
  NEW_WINDOW,
  noSafety,
  parsePercentText,
  parseWavesText,
  readSafety,
  safetyFieldOf,
  TIMED_STATES,
  type LengthUnit,
  type SafetyText,
} from '#src/operator/console/rollout-progress';
import { answer, api, ApiError } from '#web/api/client';
import { useNames } from '#web/api/queries';
import { type Approval, type DdiActionType, type OfferWhen, type RolloutPlan } from '#web/api/types';
import { ErrorText } from '#web/components/feedback';
import { describedBy, FieldError, refusalAt } from '#web/components/field-error';
import { count, nowUtc } from '#web/format';
import { withTenant } from '#web/tenant';

/** The fields of a plan, as the form holds them. */
interface Plan {
  name: string;
  firmware_id: string;
  group: string;
  priority: string;
  start_date: string;
  downgrade: boolean;
  /** Which targets are offered it: `newer` (anti-rollback) or `different`. */
  offer_when: OfferWhen;
  /** `10%, 30%, 100%`. */
  waves: string;
  /** Percentages. */
  success_threshold: string;
  error_threshold: string;
  approval: Approval;
  /** How hawkBit DDI devices take it. */
  ddi_action_type: DdiActionType;
  /** Maintenance windows, ramp, abort criteria, timeouts and rollback (docs/decisions.md §10.1, §10.2, §10.4). */
  safety: SafetyText;
}

/**
 * The fields of the plan the form shows a problem at: every field of the body but `downgrade` (a
 * checkbox cannot be wrong) and `rollback` (planned through the operator API and the CLI; the
 * rollout page shows it). A problem inside the windows, ramp, abort criteria or timeouts is shown
 * at the input it names (`windows[0].cron`), see {@link safetyFieldOf}.
 */
type PlanField = Exclude<keyof RolloutPlan, 'downgrade' | 'rollback'>;

/** The fields the form has a place for a problem at (a record, so that a new field of the body is not forgotten). */
const PLAN_FIELDS: Record<PlanField, true> = {
  name: true,
  firmware_id: true,
  group: true,
  priority: true,
  start_date: true,
  offer_when: true,
  waves: true,
  success_threshold: true,
  error_threshold: true,
  approval: true,
  ddi_action_type: true,
  windows: true,
  ramp: true,
  abort_criteria: true,
  timeouts: true,
};

/** Failure kinds and actions of an abort criterion in words. */
const FAILURE_WORDS: Record<(typeof ABORT_FAILURES)[number], string> = {
  failed: 'failed',
  fell_back: 'fell back',
  timed_out: 'timed out',
  all: 'failed, fell back or timed out',
};
const ACTION_WORDS: Record<(typeof ABORT_ACTIONS)[number], string> = { pause: 'pause the rollout', cancel: 'cancel the rollout' };

/** IANA time zones this browser knows, for the time zone fields' suggestions (the server judges the zone). */
const TIME_ZONES = ['UTC', ...(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [])].filter(
  (zone, i, all) => all.indexOf(zone) === i,
);

/** The id of the problem shown at a schedule and safety field (`windows[0].cron` → `rollout-windows-0-cron-error`). */
const errorIdOf = (key: string) => `rollout-${key.replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '')}-error`;

/** How much of schedule and safety is set, in words (shown beside the closed section's title). */
function safetySummary(safety: SafetyText): string {
  const timeouts = TIMED_STATES.filter((state) => safety.timeouts[state].length.trim() !== '').length;
  const parts = [
    safety.windows.length ? `${safety.windows.length} window${safety.windows.length === 1 ? '' : 's'}` : '',
    safety.ramp ? 'a ramp' : '',
    safety.abort_criteria.length ? `${safety.abort_criteria.length} abort criteri${safety.abort_criteria.length === 1 ? 'on' : 'a'}` : '',
    timeouts ? `${timeouts} timeout${timeouts === 1 ? '' : 's'}` : '',
    safety.rollback ? 'a rollback' : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'none set: always open, no limit, no abort, no timeout';
}

/** The waves, thresholds and approval the operator API takes when none are given. */
const DEFAULT_STAGING = {
  waves: '100%',
  success_threshold: '90',
  error_threshold: '',
  approval: 'auto',
  ddi_action_type: 'forced',
} as const;

/**
 * Reads the staging fields of the form: the body's values, or a message per field in words (a
 * schedule and safety field's message keyed by its path inside the body, `windows[0].cron`).
 */
function readStaging(plan: Plan): { body: Partial<RolloutPlan>; errors: Record<string, string | undefined> } {
  const waves = parseWavesText(plan.waves);
  const success = parsePercentText(plan.success_threshold, 'The success threshold', false);
  const error = parsePercentText(plan.error_threshold, 'The error threshold', true);
  const safety = readSafety(plan.safety);
  const errors: Record<string, string | undefined> = { ...safety.errors };
  if (waves.error) errors.waves = waves.error;
  if (success.error) errors.success_threshold = success.error;
  if (error.error) errors.error_threshold = error.error;
  const body: Partial<RolloutPlan> = {};
  // Defaults are left out: the API applies the same.
  const staged =
    plan.waves.trim() !== DEFAULT_STAGING.waves ||
    plan.success_threshold.trim() !== DEFAULT_STAGING.success_threshold ||
    plan.error_threshold.trim() !== DEFAULT_STAGING.error_threshold ||
    plan.approval !== DEFAULT_STAGING.approval;
  if (staged) {
    body.waves = waves.value;
    // Never null: the success threshold is not optional (an empty field is an error above).
    body.success_threshold = success.value ?? undefined;
    body.error_threshold = error.value;
    body.approval = plan.approval;
  }
  if (plan.ddi_action_type !== DEFAULT_STAGING.ddi_action_type) body.ddi_action_type = plan.ddi_action_type;
  return { body: { ...body, ...safety.body }, errors };
}

/**
 * The console's plan form: a rollout's firmware, group, priority and start, its staging (waves,
 * thresholds, approval, the DDI action type), and its schedule and safety (maintenance windows, ramp,
 * abort criteria, timeouts: docs/decisions.md §10.1, §10.2); each refusal of the operator API shown at its field.
 */
export function PlanRollout({ tenant }: { tenant: string }) {
  const names = useNames(tenant);
  const client = useQueryClient();
  const navigate = useNavigate();
  const [plan, setPlan] = useState<Plan>({
    name: '',
    firmware_id: '',
    group: '',
    priority: '1',
    start_date: nowUtc(),
    downgrade: false,
    offer_when: 'newer',
    ...DEFAULT_STAGING,
    safety: noSafety(),
  });
  const [invalid, setInvalid] = useState<Record<string, string | undefined>>({});
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const set = (field: keyof Plan) => (event: { target: { value: string } }) => {
    setPlan({ ...plan, [field]: event.target.value });
    if (invalid[field]) setInvalid({ ...invalid, [field]: undefined });
  };
  /** Changes the schedule and safety; `key` is the field's problem key, cleared. */
  const setSafety = (safety: SafetyText, key?: string) => {
    setPlan({ ...plan, safety });
    if (key && invalid[key]) setInvalid({ ...invalid, [key]: undefined });
  };
  const create = useMutation({
    mutationFn: (staging: Partial<RolloutPlan>) =>
      answer(
        api.POST('/tenants/{tenant}/rollouts', {
          params: { path: { tenant } },
          body: {
            name: plan.name,
            firmware_id: Number(plan.firmware_id),
            group: plan.group,
            priority: Number(plan.priority),
            start_date: plan.start_date.trim(),
            downgrade: plan.downgrade,
            ...(plan.offer_when !== 'newer' ? { offer_when: plan.offer_when } : {}),
            ...staging,
          },
        }),
      ),
    onError: (error) => {
      if (error instanceof ApiError && safetyFieldOf(error.field, error.message)) setAdvancedOpen(true);
    },
    onSuccess: async (rollout) => {
      await client.invalidateQueries({ queryKey: ['rollouts', tenant] });
      void navigate(withTenant(CONSOLE_PAGES.rollout.replace(':id', String(rollout.id)), tenant, { planned: '1' }));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { body, errors } = readStaging(plan);
    setInvalid(errors);
    if (Object.values(errors).some(Boolean)) {
      if (Object.keys(errors).some((key) => safetyFieldOf(key.replace(/[[.].*$/, ''), key) && errors[key])) setAdvancedOpen(true);
      create.reset();
      return;
    }
    create.mutate(body);
  };
  const noChoice = names.firmware.length === 0 || names.groups.length === 0;
  // A refusal of the API is shown at the field its answer names (`field`), else under the form.
  const refused = refusalAt(create.error, ...Object.keys(PLAN_FIELDS));
  const problem = (field: PlanField): string | undefined => invalid[field] ?? refusalAt(refused, field)?.message;
  const described = (field: PlanField, help?: string) => describedBy(`rollout-${field}-error`, problem(field), help);
  const fieldError = (field: PlanField) => <FieldError id={`rollout-${field}-error`} message={problem(field)} />;
  // Schedule and safety: a problem at the input its key names (the API's refusal by the path its message starts with).
  const refusedAt = refused ? safetyFieldOf(refused.field, refused.message) : undefined;
  const safetyProblem = (key: string): string | undefined => invalid[key] ?? (refusedAt === key ? refused?.message : undefined);
  const describedAt = (key: string, help?: string) => describedBy(errorIdOf(key), safetyProblem(key), help);
  const errorAt = (key: string) => <FieldError id={errorIdOf(key)} message={safetyProblem(key)} />;
  const { safety } = plan;
  const windowAt = (i: number, change: Partial<SafetyText['windows'][number]>, key: string) =>
    setSafety({ ...safety, windows: safety.windows.map((w, j) => (j === i ? { ...w, ...change } : w)) }, `windows[${i}].${key}`);
  const abortAt = (i: number, change: Partial<SafetyText['abort_criteria'][number]>, key: string) =>
    setSafety(
      { ...safety, abort_criteria: safety.abort_criteria.map((c, j) => (j === i ? { ...c, ...change } : c)) },
      `abort_criteria[${i}].${key}`,
    );
  const rollbackWith = (change: Partial<NonNullable<SafetyText['rollback']>>, key: string) =>
    setSafety({ ...safety, rollback: { ...NEW_ROLLBACK, ...safety.rollback, ...change } }, `rollback.${key}`);
  const chosen = names.firmware.find((f) => String(f.id) === plan.firmware_id);
  const rollbackTargets = names.firmware.filter(
    (f) => f.rollback_target && String(f.id) !== plan.firmware_id && (!chosen || f.device_type === chosen.device_type),
  );
  const rampWith = (change: Partial<NonNullable<SafetyText['ramp']>>, key: string) =>
    setSafety({ ...safety, ramp: { ...NEW_RAMP, ...safety.ramp, ...change } }, `ramp.${key}`);
  const unitSelect = (id: string, label: string, unit: LengthUnit, onChange: (unit: LengthUnit) => void) => (
    <select id={id} aria-label={label} value={unit} onChange={(e) => onChange(e.target.value as LengthUnit)}>
      {(Object.keys(LENGTH_UNITS) as LengthUnit[]).map((u) => (
        <option key={u} value={u}>
          {LENGTH_UNIT_LABELS[u]}
        </option>
      ))}
    </select>
  );

  return (
    <section className="card" aria-labelledby="plan-title">
      <h2 id="plan-title">Plan a rollout</h2>
      {noChoice ? (
        <p className="note">
          A rollout needs a published firmware and a device group: see <Link to={withTenant(CONSOLE_PAGES.firmware, tenant)}>Firmware</Link>{' '}
          and <Link to={withTenant(CONSOLE_PAGES.groups, tenant)}>Groups</Link>.
        </p>
      ) : null}
      <ErrorText error={names.error} />
      <form className="stack" onSubmit={submit}>
        <div className="field">
          <label htmlFor="rollout-name">Name</label>
          <input
            id="rollout-name"
            required
            maxLength={128}
            value={plan.name}
            onChange={set('name')}
            placeholder="e.g. 1.2.0 to field test"
            {...described('name')}
          />
          {fieldError('name')}
        </div>
        <div className="row">
          <div className="field">
            <label htmlFor="rollout-firmware">Firmware</label>
            <select id="rollout-firmware" required value={plan.firmware_id} onChange={set('firmware_id')} {...described('firmware_id')}>
              <option value="">choose a firmware</option>
              {names.firmware.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.version} for {f.device_type} (firmware {f.id})
                </option>
              ))}
            </select>
            {fieldError('firmware_id')}
          </div>
          <div className="field">
            <label htmlFor="rollout-group">Device group</label>
            <select id="rollout-group" required value={plan.group} onChange={set('group')} {...described('group')}>
              <option value="">choose a group</option>
              {names.groups.map((g) => (
                <option key={g.id} value={g.name}>
                  {g.name} ({count(g.members)} members)
                </option>
              ))}
            </select>
            {fieldError('group')}
          </div>
        </div>
        <div className="row">
          <div className="field">
            <label htmlFor="rollout-priority">Priority (1 is most urgent)</label>
            <input
              id="rollout-priority"
              type="number"
              min={1}
              step={1}
              required
              value={plan.priority}
              onChange={set('priority')}
              {...described('priority')}
            />
            {fieldError('priority')}
          </div>
          <div className="field">
            <label htmlFor="rollout-start">Start date, UTC (YYYY-MM-DD HH:MM:SS)</label>
            <input
              id="rollout-start"
              required
              pattern="\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"
              value={plan.start_date}
              onChange={set('start_date')}
              {...described('start_date', 'rollout-start-help')}
            />
            <span id="rollout-start-help" className="muted small">
              Devices are offered it once this time has passed and it is started.
            </span>
            {fieldError('start_date')}
          </div>
        </div>
        <div className="check">
          <input
            id="rollout-downgrade"
            type="checkbox"
            checked={plan.downgrade}
            onChange={(e) => setPlan({ ...plan, downgrade: e.target.checked })}
          />
          <label htmlFor="rollout-downgrade">Downgrade: offer it also to devices running a newer version</label>
        </div>
        <div className="field">
          <label htmlFor="rollout-offer-when">Offer it to</label>
          <select
            id="rollout-offer-when"
            value={plan.offer_when}
            onChange={set('offer_when')}
            {...described('offer_when', 'rollout-offer-when-help')}
          >
            <option value="newer">devices on an older version (anti-rollback)</option>
            <option value="different">every device not already running it</option>
          </select>
          <span id="rollout-offer-when-help" className="muted small">
            Devices the rollout will not update are skipped and not waited for. Choose “every device not already running it” for Mender
            artifact names or build ids that do not order as versions.
          </span>
          {fieldError('offer_when')}
        </div>
        <fieldset className="staging">
          <legend>Waves and thresholds</legend>
          <div className="field">
            <label htmlFor="rollout-waves">Waves</label>
            <input id="rollout-waves" value={plan.waves} onChange={set('waves')} {...described('waves', 'rollout-waves-help')} />
            <span id="rollout-waves-help" className="muted small">
              Where each wave ends, separated by commas: a share of the group (“10%”) or a number of devices (“50”), each counting the waves
              before it. “10%, 100%”: a tenth of the devices first, then the rest. The last wave also takes devices that join the group
              later.
            </span>
            {fieldError('waves')}
          </div>
          <div className="row">
            <div className="field">
              <label htmlFor="rollout-success">Success threshold (% of a wave confirmed)</label>
              <input
                id="rollout-success"
                inputMode="decimal"
                value={plan.success_threshold}
                onChange={set('success_threshold')}
                {...described('success_threshold', 'rollout-success-help')}
              />
              <span id="rollout-success-help" className="muted small">
                The next wave starts (or may be approved) once this share of the current wave is confirmed.
              </span>
              {fieldError('success_threshold')}
            </div>
            <div className="field">
              <label htmlFor="rollout-error">Error threshold (% of a wave failed or fell back)</label>
              <input
                id="rollout-error"
                inputMode="decimal"
                value={plan.error_threshold}
                onChange={set('error_threshold')}
                placeholder="none"
                {...described('error_threshold', 'rollout-error-help')}
              />
              <span id="rollout-error-help" className="muted small">
                Above this share the rollout pauses by itself. Empty: it never does.
              </span>
              {fieldError('error_threshold')}
            </div>
          </div>
          <div className="field">
            <label htmlFor="rollout-approval">Next wave</label>
            <select id="rollout-approval" value={plan.approval} onChange={set('approval')} {...described('approval')}>
              <option value="auto">starts by itself once the threshold is reached</option>
              <option value="manual">waits for an admin to approve it</option>
            </select>
            {fieldError('approval')}
          </div>
          <div className="field">
            <label htmlFor="rollout-ddi-action-type">hawkBit devices</label>
            <select
              id="rollout-ddi-action-type"
              value={plan.ddi_action_type}
              onChange={set('ddi_action_type')}
              {...described('ddi_action_type')}
            >
              <option value="forced">install at once (forced)</option>
              <option value="soft">may postpone (soft)</option>
              <option value="download-only">download only, do not install</option>
            </select>
            {fieldError('ddi_action_type')}
          </div>
        </fieldset>
        <details className="advanced" open={advancedOpen} onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}>
          <summary>
            Advanced: schedule and safety <span className="muted small">({safetySummary(safety)})</span>
          </summary>
          <div className="stack">
            <fieldset className="staging" aria-describedby="rollout-windows-help">
              <legend>Maintenance windows</legend>
              <span id="rollout-windows-help" className="muted small">
                Devices are offered the installation only inside a window (hawkBit devices may download it before). Each window opens at
                every time its cron expression names, read in its time zone, and stays open for its length. None: always open.
              </span>
              {safety.windows.map((w, i) => (
                <fieldset key={i} className="entry">
                  <legend>Maintenance window {i + 1}</legend>
                  <div className="row">
                    <div className="field">
                      <label htmlFor={`rollout-window-${i}-cron`}>Opens at (cron: minute hour day month weekday)</label>
                      <input
                        id={`rollout-window-${i}-cron`}
                        value={w.cron}
                        placeholder="0 2 * * *"
                        spellCheck={false}
                        onChange={(e) => windowAt(i, { cron: e.target.value }, 'cron')}
                        {...describedAt(`windows[${i}].cron`)}
                      />
                      {errorAt(`windows[${i}].cron`)}
                    </div>
                    <div className="field">
                      <label htmlFor={`rollout-window-${i}-length`}>Open for</label>
                      <div className="inline-field">
                        <input
                          id={`rollout-window-${i}-length`}
                          className="amount"
                          inputMode="numeric"
                          value={w.length}
                          onChange={(e) => windowAt(i, { length: e.target.value }, 'duration_seconds')}
                          {...describedAt(`windows[${i}].duration_seconds`)}
                        />
                        {unitSelect(`rollout-window-${i}-unit`, `Unit of window ${i + 1}'s length`, w.unit, (unit) =>
                          windowAt(i, { unit }, 'duration_seconds'),
                        )}
                      </div>
                      {errorAt(`windows[${i}].duration_seconds`)}
                    </div>
                    <div className="field">
                      <label htmlFor={`rollout-window-${i}-zone`}>Time zone (IANA)</label>
                      <input
                        id={`rollout-window-${i}-zone`}
                        list="rollout-time-zones"
                        value={w.time_zone}
                        placeholder="Europe/Berlin"
                        spellCheck={false}
                        onChange={(e) => windowAt(i, { time_zone: e.target.value }, 'time_zone')}
                        {...describedAt(`windows[${i}].time_zone`)}
                      />
                      {errorAt(`windows[${i}].time_zone`)}
                    </div>
                  </div>
                  <button
                    type="button"
                    className="link"
                    onClick={() => setSafety({ ...safety, windows: safety.windows.filter((_, j) => j !== i) })}
                  >
                    Remove window {i + 1}
                  </button>
                </fieldset>
              ))}
              <datalist id="rollout-time-zones">
                {TIME_ZONES.map((zone) => (
                  <option key={zone} value={zone} />
                ))}
              </datalist>
              {errorAt('windows')}
              {safety.windows.length < MAX_WINDOWS ? (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => setSafety({ ...safety, windows: [...safety.windows, { ...NEW_WINDOW }] })}
                >
                  Add a maintenance window
                </button>
              ) : null}
            </fieldset>

            <fieldset className="staging" aria-describedby="rollout-ramp-help">
              <legend>Ramp</legend>
              <div className="check">
                <input
                  id="rollout-ramp"
                  type="checkbox"
                  checked={safety.ramp !== null}
                  onChange={(e) => setSafety({ ...safety, ramp: e.target.checked ? { ...NEW_RAMP } : null }, 'ramp')}
                />
                <label htmlFor="rollout-ramp">Limit new offers a minute (ramp)</label>
              </div>
              <span id="rollout-ramp-help" className="muted small">
                At most so many devices a minute are offered it for the first time, the rate multiplied by the factor each time so many more
                devices were offered it or confirmed it, up to the most. Devices asking once the minute’s offers are spent get it on a later
                poll.
              </span>
              {safety.ramp ? (
                <>
                  <div className="row">
                    <div className="field">
                      <label htmlFor="rollout-ramp-base">New offers a minute at first</label>
                      <input
                        id="rollout-ramp-base"
                        inputMode="numeric"
                        value={safety.ramp.base_per_minute}
                        placeholder="10"
                        onChange={(e) => rampWith({ base_per_minute: e.target.value }, 'base_per_minute')}
                        {...describedAt('ramp.base_per_minute')}
                      />
                      {errorAt('ramp.base_per_minute')}
                    </div>
                    <div className="field">
                      <label htmlFor="rollout-ramp-factor">Factor at each step</label>
                      <input
                        id="rollout-ramp-factor"
                        inputMode="decimal"
                        value={safety.ramp.increment_factor}
                        onChange={(e) => rampWith({ increment_factor: e.target.value }, 'increment_factor')}
                        {...describedAt('ramp.increment_factor')}
                      />
                      {errorAt('ramp.increment_factor')}
                    </div>
                    <div className="field">
                      <label htmlFor="rollout-ramp-max">Most new offers a minute</label>
                      <input
                        id="rollout-ramp-max"
                        inputMode="numeric"
                        value={safety.ramp.maximum_per_minute}
                        onChange={(e) => rampWith({ maximum_per_minute: e.target.value }, 'maximum_per_minute')}
                        {...describedAt('ramp.maximum_per_minute')}
                      />
                      {errorAt('ramp.maximum_per_minute')}
                    </div>
                  </div>
                  <div className="field">
                    <label htmlFor="rollout-ramp-every">A step each time this many more devices</label>
                    <div className="inline-field">
                      <input
                        id="rollout-ramp-every"
                        className="amount"
                        inputMode="numeric"
                        value={safety.ramp.every}
                        placeholder="100"
                        onChange={(e) => rampWith({ every: e.target.value }, 'increment_every')}
                        {...describedAt('ramp.increment_every')}
                      />
                      <select
                        id="rollout-ramp-criterion"
                        aria-label="What the ramp's step counts"
                        value={safety.ramp.criterion}
                        onChange={(e) => rampWith({ criterion: e.target.value as 'offered' | 'confirmed' }, 'increment_every')}
                      >
                        <option value="confirmed">confirmed it</option>
                        <option value="offered">were offered it</option>
                      </select>
                    </div>
                    {errorAt('ramp.increment_every')}
                  </div>
                </>
              ) : null}
              {errorAt('ramp')}
            </fieldset>

            <fieldset className="staging" aria-describedby="rollout-abort-help">
              <legend>Abort criteria</legend>
              <span id="rollout-abort-help" className="muted small">
                Judged in order as devices finish (confirmed, failed, fell back or timed out): the first whose failures reach their share of
                the finished devices, once at least so many finished, pauses or cancels the rollout. None: it never stops itself this way.
              </span>
              {safety.abort_criteria.map((c, i) => (
                <fieldset key={i} className="entry">
                  <legend>Abort criterion {i + 1}</legend>
                  <div className="row">
                    <div className="field">
                      <label htmlFor={`rollout-abort-${i}-failure`}>When devices</label>
                      <select
                        id={`rollout-abort-${i}-failure`}
                        value={c.failure}
                        onChange={(e) => abortAt(i, { failure: e.target.value as typeof c.failure }, 'failure')}
                        {...describedAt(`abort_criteria[${i}].failure`)}
                      >
                        {ABORT_FAILURES.map((f) => (
                          <option key={f} value={f}>
                            {FAILURE_WORDS[f]}
                          </option>
                        ))}
                      </select>
                      {errorAt(`abort_criteria[${i}].failure`)}
                    </div>
                    <div className="field">
                      <label htmlFor={`rollout-abort-${i}-percentage`}>reach (% of the finished devices)</label>
                      <input
                        id={`rollout-abort-${i}-percentage`}
                        inputMode="decimal"
                        value={c.threshold_percentage}
                        placeholder="10"
                        onChange={(e) => abortAt(i, { threshold_percentage: e.target.value }, 'threshold_percentage')}
                        {...describedAt(`abort_criteria[${i}].threshold_percentage`)}
                      />
                      {errorAt(`abort_criteria[${i}].threshold_percentage`)}
                    </div>
                    <div className="field">
                      <label htmlFor={`rollout-abort-${i}-min`}>once at least this many finished</label>
                      <input
                        id={`rollout-abort-${i}-min`}
                        inputMode="numeric"
                        value={c.min_finished}
                        placeholder="20"
                        onChange={(e) => abortAt(i, { min_finished: e.target.value }, 'min_finished')}
                        {...describedAt(`abort_criteria[${i}].min_finished`)}
                      />
                      {errorAt(`abort_criteria[${i}].min_finished`)}
                    </div>
                    <div className="field">
                      <label htmlFor={`rollout-abort-${i}-action`}>then</label>
                      <select
                        id={`rollout-abort-${i}-action`}
                        value={c.action}
                        onChange={(e) => abortAt(i, { action: e.target.value as typeof c.action }, 'action')}
                        {...describedAt(`abort_criteria[${i}].action`)}
                      >
                        {ABORT_ACTIONS.map((a) => (
                          <option key={a} value={a}>
                            {ACTION_WORDS[a]}
                          </option>
                        ))}
                      </select>
                      {errorAt(`abort_criteria[${i}].action`)}
                    </div>
                  </div>
                  <button
                    type="button"
                    className="link"
                    onClick={() => setSafety({ ...safety, abort_criteria: safety.abort_criteria.filter((_, j) => j !== i) })}
                  >
                    Remove abort criterion {i + 1}
                  </button>
                </fieldset>
              ))}
              {errorAt('abort_criteria')}
              {safety.abort_criteria.length < MAX_ABORT_CRITERIA ? (
                <button
                  type="button"
                  className="secondary"
                  onClick={() => setSafety({ ...safety, abort_criteria: [...safety.abort_criteria, { ...NEW_ABORT }] })}
                >
                  Add an abort criterion
                </button>
              ) : null}
            </fieldset>

            <fieldset className="staging" aria-describedby="rollout-timeouts-help">
              <legend>Timeouts</legend>
              <span id="rollout-timeouts-help" className="muted small">
                A device that stays longer in a state is timed out there (a retry sends it back to pending); 1 minute to 7 days. Empty: no
                timeout (a device silent after reporting success is failed after the server’s confirmation window).
              </span>
              <div className="row">
                {TIMED_STATES.map((state) => (
                  <div className="field" key={state}>
                    <label htmlFor={`rollout-timeout-${state}`}>Longest {state}</label>
                    <div className="inline-field">
                      <input
                        id={`rollout-timeout-${state}`}
                        className="amount"
                        inputMode="numeric"
                        value={safety.timeouts[state].length}
                        placeholder="none"
                        onChange={(e) =>
                          setSafety(
                            { ...safety, timeouts: { ...safety.timeouts, [state]: { ...safety.timeouts[state], length: e.target.value } } },
                            `timeouts.${state}`,
                          )
                        }
                        {...describedAt(`timeouts.${state}`)}
                      />
                      {unitSelect(`rollout-timeout-${state}-unit`, `Unit of the ${state} timeout`, safety.timeouts[state].unit, (unit) =>
                        setSafety(
                          { ...safety, timeouts: { ...safety.timeouts, [state]: { ...safety.timeouts[state], unit } } },
                          `timeouts.${state}`,
                        ),
                      )}
                    </div>
                    {errorAt(`timeouts.${state}`)}
                  </div>
                ))}
              </div>
              {errorAt('timeouts')}
            </fieldset>

            <fieldset className="staging" aria-describedby="rollout-rollback-help">
              <legend>Rollback</legend>
              <div className="check">
                <input
                  id="rollout-rollback"
                  type="checkbox"
                  checked={safety.rollback !== null}
                  onChange={(e) => setSafety({ ...safety, rollback: e.target.checked ? { ...NEW_ROLLBACK } : null }, 'rollback')}
                />
                <label htmlFor="rollout-rollback">Stop and roll back when too many devices fail</label>
              </div>
              <span id="rollout-rollback-help" className="muted small">
                Once so many devices failed, fell back or timed out (a share of the targets, a number, or whichever comes first), the
                rollout is cancelled and those devices (or every device that took it) are offered the rollback firmware by a rollout of its
                own. Only a firmware marked as a rollback target on the Firmware page can be chosen.
              </span>
              {safety.rollback ? (
                <>
                  <div className="row">
                    <div className="field">
                      <label htmlFor="rollout-rollback-firmware">Roll back to</label>
                      <select
                        id="rollout-rollback-firmware"
                        value={safety.rollback.firmware_id}
                        onChange={(e) => rollbackWith({ firmware_id: e.target.value }, 'firmware_id')}
                        {...describedAt('rollback.firmware_id')}
                      >
                        <option value="">
                          {rollbackTargets.length ? 'choose a rollback target' : 'no firmware is marked as a rollback target'}
                        </option>
                        {rollbackTargets.map((f) => (
                          <option key={f.id} value={String(f.id)}>
                            {f.version} for {f.device_type} (firmware {f.id})
                          </option>
                        ))}
                      </select>
                      {errorAt('rollback.firmware_id')}
                    </div>
                    <div className="field">
                      <label htmlFor="rollout-rollback-percentage">When this % of the targets failed</label>
                      <input
                        id="rollout-rollback-percentage"
                        inputMode="decimal"
                        value={safety.rollback.failed_percentage}
                        placeholder="5"
                        onChange={(e) => rollbackWith({ failed_percentage: e.target.value }, 'failed_percentage')}
                        {...describedAt('rollback.failed_percentage')}
                      />
                      {errorAt('rollback.failed_percentage')}
                    </div>
                    <div className="field">
                      <label htmlFor="rollout-rollback-count">or this many devices</label>
                      <input
                        id="rollout-rollback-count"
                        inputMode="numeric"
                        value={safety.rollback.failed_count}
                        placeholder="none"
                        onChange={(e) => rollbackWith({ failed_count: e.target.value }, 'failed_count')}
                        {...describedAt('rollback.failed_count')}
                      />
                      {errorAt('rollback.failed_count')}
                    </div>
                  </div>
                  <div className="field">
                    <label htmlFor="rollout-rollback-scope">Whom to roll back</label>
                    <select
                      id="rollout-rollback-scope"
                      value={safety.rollback.scope}
                      onChange={(e) => rollbackWith({ scope: e.target.value as 'failed' | 'all' }, 'scope')}
                    >
                      <option value="failed">the devices that failed, fell back or timed out</option>
                      <option value="all">every device that took it</option>
                    </select>
                  </div>
                </>
              ) : null}
              {errorAt('rollback')}
            </fieldset>
          </div>
        </details>
        {refused ? null : <ErrorText error={create.error} />}
        {Object.values(invalid).some(Boolean) ? (
          <p className="error" role="alert">
            The plan has problems: see the fields marked above.
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Planning…' : 'Plan rollout'}
          </button>
          <span className="muted small">It is planned as a draft: start it from its page.</span>
        </div>
      </form>
    </section>
  );
}
