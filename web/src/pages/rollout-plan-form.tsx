import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { parsePercentText, parseWavesText } from '#src/operator/console/rollout-progress';
import { answer, api } from '#web/api/client';
import { useNames } from '#web/api/queries';
import { type Approval, type DdiActionType, type RolloutPlan } from '#web/api/types';
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
  /** `10%, 30%, 100%`. */
  waves: string;
  /** Percentages. */
  success_threshold: string;
  error_threshold: string;
  approval: Approval;
  /** How hawkBit DDI devices take it. */
  ddi_action_type: DdiActionType;
}

/**
 * The fields of the plan the form shows a problem at: every field of the body but `downgrade` (a
 * checkbox cannot be wrong) and the maintenance windows, ramp, abort criteria and timeouts (planned
 * through the operator API and the CLI; the form does not offer them yet, the rollout page shows them).
 */
type PlanField = Exclude<keyof RolloutPlan, 'downgrade' | 'windows' | 'ramp' | 'abort_criteria' | 'timeouts' | 'rollback'>;

/** The fields the form has a place for a problem at (a record, so that a new field of the body is not forgotten). */
const PLAN_FIELDS: Record<PlanField, true> = {
  name: true,
  firmware_id: true,
  group: true,
  priority: true,
  start_date: true,
  waves: true,
  success_threshold: true,
  error_threshold: true,
  approval: true,
  ddi_action_type: true,
};

/** The waves, thresholds and approval the operator API takes when none are given. */
const DEFAULT_STAGING = {
  waves: '100%',
  success_threshold: '90',
  error_threshold: '',
  approval: 'auto',
  ddi_action_type: 'forced',
} as const;

/** Reads the staging fields of the form: the body's values, or a message per field in words. */
function readStaging(plan: Plan): { body: Partial<RolloutPlan>; errors: Partial<Record<PlanField, string>> } {
  const waves = parseWavesText(plan.waves);
  const success = parsePercentText(plan.success_threshold, 'The success threshold', false);
  const error = parsePercentText(plan.error_threshold, 'The error threshold', true);
  const errors: Partial<Record<PlanField, string>> = {};
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
  return { body, errors };
}

/**
 * The console's plan form: a rollout's firmware, group, priority and start, and its staging (waves,
 * thresholds, approval, the DDI action type); each refusal of the operator API shown at its field.
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
    ...DEFAULT_STAGING,
  });
  const [invalid, setInvalid] = useState<Partial<Record<PlanField, string>>>({});
  const set = (field: keyof Plan) => (event: { target: { value: string } }) => {
    setPlan({ ...plan, [field]: event.target.value });
    if (invalid[field as PlanField]) setInvalid({ ...invalid, [field]: undefined });
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
            ...staging,
          },
        }),
      ),
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
