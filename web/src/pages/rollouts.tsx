import { Link, useSearchParams } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { useNames, useRollouts } from '#web/api/queries';
import { ROLLOUT_STATUSES, type RolloutStatus } from '#web/api/types';
import { ViewerNote } from '#web/components/feedback';
import { ForTenant, PageTitle } from '#web/components/page-title';
import { StatusBadge } from '#web/components/status';
import { InlineSelect, PagedList, Table } from '#web/components/table';
import { count, percent } from '#web/format';
import { StateBar } from '#web/rollout-view';
import { useSession } from '#web/session';
import { withTenant } from '#web/tenant';
import { PlanRollout } from './rollout-plan-form';

/** Rollouts of the tenant: plan one, and every rollout with its live progress. */
export function RolloutsPage() {
  const { canChange } = useSession();
  return (
    <>
      <PageTitle title="Rollouts" />
      <ViewerNote />
      <ForTenant>
        {(tenant) => (
          <>
            <RolloutList tenant={tenant} />
            {canChange ? <PlanRollout tenant={tenant} key={tenant} /> : null}
          </>
        )}
      </ForTenant>
    </>
  );
}

/** The tenant's rollouts, a page at a time, each with its status and live progress. */
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
        <InlineSelect
          id="rollout-status"
          label="Status"
          value={status ?? ''}
          options={[['', 'all'], ...ROLLOUT_STATUSES.map((s) => [s, s] as const)]}
          onChange={(value) => update('status', value || undefined)}
        />
      </div>
      <PagedList
        list={rollouts}
        what="rollouts"
        empty={`No rollout${status ? ` is ${status}` : ' yet'}.`}
        page={page}
        perPage={50}
        onPage={(p) => update('page', String(p))}
      >
        {(items) => (
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
              {items.map((r) => (
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
                    <StateBar counts={r.devices} label={`Progress of ${r.name}`} legend={false} />
                    <span className="small">
                      {count(r.devices.confirmed)} / {count(r.targeted)} confirmed ({percent(r.devices.confirmed, r.targeted)})
                      {r.pause_reason ? ` · ${r.status === 'cancelled' ? 'cancelled' : 'paused'} by itself` : ''}
                      {r.awaiting_approval ? ' · waiting for approval' : ''}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </PagedList>
    </section>
  );
}
