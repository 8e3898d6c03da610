import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { CONSOLE_PAGES } from '#src/console/console-pages';
import { get, post, segment } from '#web/api/client';
import { REFRESH, useNames } from '#web/api/queries';
import type { Rollout } from '#web/api/types';
import { ConfirmButton } from '#web/components/confirm';
import { ErrorText, Loading, Status, ViewerNote } from '#web/components/feedback';
import { NoTenant, PageTitle } from '#web/components/page-title';
import { SegmentedBar } from '#web/components/progress';
import { StatusBadge } from '#web/components/status';
import { ago, count, percent, utc } from '#web/format';
import { isLive, progressSegments, ROLLOUT_ACTIONS, type RolloutAction } from '#web/rollout-view';
import { useSession } from '#web/session';
import { useTenant, withTenant } from '#web/tenant';

/** One rollout: its plan, its progress (refreshed every 2 s while it may change) and its actions. */
export function RolloutPage() {
  const { id = '' } = useParams();
  const { tenant, loading } = useTenant();
  const { canChange } = useSession();
  const [params] = useSearchParams();
  return (
    <>
      <PageTitle title={`Rollout ${id}`} />
      {params.get('planned') ? <Status>Rollout planned as a draft. Start it when you are ready.</Status> : null}
      {canChange ? null : <ViewerNote />}
      {tenant ? <Detail tenant={tenant} id={id} canChange={canChange} /> : loading ? <Loading what="tenants" /> : <NoTenant />}
    </>
  );
}

function Detail({ tenant, id, canChange }: { tenant: string; id: string; canChange: boolean }) {
  const names = useNames(tenant);
  const rollout = useQuery({
    queryKey: ['rollout', tenant, id],
    queryFn: () => get<Rollout>(`tenants/${segment(tenant)}/rollouts/${segment(id)}`),
    refetchInterval: (query) => (query.state.data && !isLive(query.state.data.status) ? false : REFRESH.rollout),
  });
  if (rollout.isPending) return <Loading what="the rollout" />;
  if (rollout.error && !rollout.data) return <ErrorText error={rollout.error} />;
  const r = rollout.data;
  return (
    <div className="grid">
      <section className="card wide" aria-labelledby="rollout-title">
        <div className="section-head">
          <h2 id="rollout-title">{r.name}</h2>
          <StatusBadge status={r.status} />
        </div>
        <ErrorText error={rollout.error} />
        <SegmentedBar segments={progressSegments(r)} total={r.targeted} label={`Progress of ${r.name}`} />
        <p aria-live="polite" className="progress-line">
          {count(r.updated)} of {count(r.targeted)} devices updated ({percent(r.updated, r.targeted)}); last report{' '}
          {ago(r.last_activity_at)}.
        </p>
        {isLive(r.status) ? <p className="muted small">Refreshed every {REFRESH.rollout / 1000} s.</p> : null}
        {canChange ? <Actions tenant={tenant} rollout={r} /> : null}
      </section>
      <section className="card" aria-labelledby="plan-title">
        <h2 id="plan-title">Plan</h2>
        <dl className="facts">
          <dt>Firmware</dt>
          <dd>{names.firmwareName(r.firmware_id)}</dd>
          <dt>Device group</dt>
          <dd>
            <Link to={withTenant(CONSOLE_PAGES.group.replace(':group', encodeURIComponent(names.groupName(r.group_id))), tenant)}>
              {names.groupName(r.group_id)}
            </Link>
          </dd>
          <dt>Priority</dt>
          <dd>{r.priority}</dd>
          <dt>Start date</dt>
          <dd>{r.start_date} UTC</dd>
          <dt>Downgrade</dt>
          <dd>{r.downgrade ? 'yes: offered to devices on newer versions too' : 'no: upgrades only'}</dd>
          <dt>Last report</dt>
          <dd>{utc(r.last_activity_at)}</dd>
        </dl>
      </section>
    </div>
  );
}

/** The lifecycle actions the rollout's state allows; a refusal is shown next to the buttons. */
function Actions({ tenant, rollout }: { tenant: string; rollout: Rollout }) {
  const client = useQueryClient();
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const allowed = ROLLOUT_ACTIONS.filter((a) => a.from.includes(rollout.status));
  if (allowed.length === 0) return null;

  const run = async (action: RolloutAction) => {
    setBusy(action.action);
    setError(undefined);
    try {
      const changed = await post<Rollout>(`tenants/${segment(tenant)}/rollouts/${rollout.id}/${action.action}`);
      client.setQueryData(['rollout', tenant, String(rollout.id)], changed);
      await client.invalidateQueries({ queryKey: ['rollouts', tenant] });
    } catch (failure) {
      setError(failure);
      throw failure;
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <div className="rollout-actions">
      <div className="actions" role="group" aria-label="Rollout actions">
        {allowed.map((action) =>
          action.confirm ? (
            <ConfirmButton
              key={action.action}
              label={action.label}
              title={`${action.label}: ${rollout.name}?`}
              confirmLabel={action.label}
              danger
              onConfirm={() => run(action)}
            >
              <p>{action.confirm}</p>
            </ConfirmButton>
          ) : (
            <button key={action.action} type="button" disabled={busy !== undefined} onClick={() => void run(action).catch(() => undefined)}>
              {busy === action.action ? 'Working…' : action.label}
            </button>
          ),
        )}
      </div>
      <ErrorText error={error} />
    </div>
  );
}
