import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { CONSOLE_PAGES } from '#src/console/console-pages';
import { post, segment } from '#web/api/client';
import { useNames, useRollouts } from '#web/api/queries';
import { ROLLOUT_STATUSES, type Rollout, type RolloutStatus } from '#web/api/types';
import { ErrorText, Loading, ViewerNote } from '#web/components/feedback';
import { NoTenant, PageTitle } from '#web/components/page-title';
import { SegmentedBar } from '#web/components/progress';
import { StatusBadge } from '#web/components/status';
import { Pager, Table } from '#web/components/table';
import { count, nowUtc, percent } from '#web/format';
import { progressSegments } from '#web/rollout-view';
import { useSession } from '#web/session';
import { useTenant, withTenant } from '#web/tenant';

/** Rollouts of the tenant: plan one, and every rollout with its live progress. */
export function RolloutsPage() {
  const { tenant, loading } = useTenant();
  const { canChange } = useSession();
  return (
    <>
      <PageTitle title="Rollouts" />
      {canChange ? null : <ViewerNote />}
      {tenant ? (
        <>
          <RolloutList tenant={tenant} />
          {canChange ? <PlanRollout tenant={tenant} key={tenant} /> : null}
        </>
      ) : loading ? (
        <Loading what="tenants" />
      ) : (
        <NoTenant />
      )}
    </>
  );
}

/** The fields of a plan, as the form holds them. */
interface Plan {
  name: string;
  firmware_id: string;
  group: string;
  priority: string;
  start_date: string;
  downgrade: boolean;
}

function PlanRollout({ tenant }: { tenant: string }) {
  const names = useNames(tenant);
  const client = useQueryClient();
  const navigate = useNavigate();
  const [plan, setPlan] = useState<Plan>({ name: '', firmware_id: '', group: '', priority: '1', start_date: nowUtc(), downgrade: false });
  const set = (field: keyof Plan) => (event: { target: { value: string } }) => setPlan({ ...plan, [field]: event.target.value });
  const create = useMutation({
    mutationFn: () =>
      post<Rollout>(`tenants/${segment(tenant)}/rollouts`, {
        name: plan.name,
        firmware_id: Number(plan.firmware_id),
        group: plan.group,
        priority: Number(plan.priority),
        start_date: plan.start_date.trim(),
        downgrade: plan.downgrade,
      }),
    onSuccess: async (rollout) => {
      await client.invalidateQueries({ queryKey: ['rollouts', tenant] });
      void navigate(withTenant(CONSOLE_PAGES.rollout.replace(':id', String(rollout.id)), tenant, { planned: '1' }));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const noChoice = names.firmware.length === 0 || names.groups.length === 0;

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
          />
        </div>
        <div className="row">
          <div className="field">
            <label htmlFor="rollout-firmware">Firmware</label>
            <select id="rollout-firmware" required value={plan.firmware_id} onChange={set('firmware_id')}>
              <option value="">choose a firmware</option>
              {names.firmware.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.version} for {f.device_type} (firmware {f.id})
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="rollout-group">Device group</label>
            <select id="rollout-group" required value={plan.group} onChange={set('group')}>
              <option value="">choose a group</option>
              {names.groups.map((g) => (
                <option key={g.id} value={g.name}>
                  {g.name} ({count(g.members)} members)
                </option>
              ))}
            </select>
          </div>
        </div>
        <div className="row">
          <div className="field">
            <label htmlFor="rollout-priority">Priority (1 is most urgent)</label>
            <input id="rollout-priority" type="number" min={1} step={1} required value={plan.priority} onChange={set('priority')} />
          </div>
          <div className="field">
            <label htmlFor="rollout-start">Start date, UTC (YYYY-MM-DD HH:MM:SS)</label>
            <input
              id="rollout-start"
              required
              pattern="\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"
              value={plan.start_date}
              onChange={set('start_date')}
              aria-describedby="rollout-start-help"
            />
            <span id="rollout-start-help" className="muted small">
              Devices are offered it once this time has passed and it is started.
            </span>
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
        <ErrorText error={create.error} />
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

function RolloutList({ tenant }: { tenant: string }) {
  const [params, setParams] = useSearchParams();
  const status = (ROLLOUT_STATUSES as readonly string[]).includes(params.get('status') ?? '')
    ? (params.get('status') as RolloutStatus)
    : undefined;
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const rollouts = useRollouts(tenant, status, page, 50);
  const names = useNames(tenant);
  const update = (key: string, value: string | undefined) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (value) next.set(key, value);
      else next.delete(key);
      if (key !== 'page') next.delete('page');
      return next;
    });

  return (
    <section className="card" aria-labelledby="rollouts-title">
      <div className="section-head">
        <h2 id="rollouts-title">Rollouts of {tenant}</h2>
        <div className="inline-field">
          <label htmlFor="rollout-status">Status</label>
          <select id="rollout-status" value={status ?? ''} onChange={(e) => update('status', e.target.value || undefined)}>
            <option value="">all</option>
            {ROLLOUT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorText error={rollouts.error} />
      {rollouts.isPending ? <Loading what="rollouts" /> : null}
      {rollouts.data?.total === 0 ? <p className="muted">No rollout{status ? ` is ${status}` : ' yet'}.</p> : null}
      {rollouts.data && rollouts.data.total > 0 ? (
        <>
          <Table caption={`Rollouts of ${tenant}`} hideCaption>
            <thead>
              <tr>
                <th scope="col">Rollout</th>
                <th scope="col">Status</th>
                <th scope="col">Firmware</th>
                <th scope="col">Group</th>
                <th scope="col">Priority</th>
                <th scope="col">Start (UTC)</th>
                <th scope="col">Progress</th>
              </tr>
            </thead>
            <tbody>
              {rollouts.data.items.map((r) => (
                <tr key={r.id}>
                  <td>
                    <Link to={withTenant(CONSOLE_PAGES.rollout.replace(':id', String(r.id)), tenant)}>{r.name}</Link>
                  </td>
                  <td>
                    <StatusBadge status={r.status} />
                  </td>
                  <td>{names.firmwareName(r.firmware_id)}</td>
                  <td>{names.groupName(r.group_id)}</td>
                  <td>{r.priority}</td>
                  <td>{r.start_date}</td>
                  <td className="progress-cell">
                    <SegmentedBar segments={progressSegments(r)} total={r.targeted} label={`Progress of ${r.name}`} legend={false} />
                    <span className="small">
                      {count(r.updated)} / {count(r.targeted)} ({percent(r.updated, r.targeted)})
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
          <Pager page={page} perPage={50} total={rollouts.data.total} what="rollouts" onPage={(p) => update('page', String(p))} />
        </>
      ) : null}
    </section>
  );
}
