import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { answer, api } from '#web/api/client';
import type { LedgerVerify } from '#web/api/types';
import { REFRESH, useLedgerHead, useNames, useRollouts } from '#web/api/queries';
import { BarChart } from '#web/components/bar-chart';
import { ErrorText, Loading } from '#web/components/feedback';
import { NoTenant, PageTitle } from '#web/components/page-title';
import { StatusBadge } from '#web/components/status';
import { count, percent, shortHash, utc } from '#web/format';
import { retriable, StateBar } from '#web/rollout-view';
import { useTenant, withTenant } from '#web/tenant';

/** The fleet at a glance: versions, devices seen lately, rollouts under way, the ledger. */
export function OverviewPage() {
  const { tenant, loading } = useTenant();
  return (
    <>
      <PageTitle title={tenant ? `Overview of ${tenant}` : 'Overview'} />
      {tenant ? (
        <div className="grid">
          <Fleet tenant={tenant} />
          <ActiveRollouts tenant={tenant} />
          <LedgerStatus />
        </div>
      ) : loading ? (
        <Loading what="tenants" />
      ) : (
        <>
          <NoTenant />
          <LedgerStatus />
        </>
      )}
    </>
  );
}

function Fleet({ tenant }: { tenant: string }) {
  const fleet = useQuery({
    queryKey: ['fleet', tenant],
    queryFn: () => answer(api.GET('/tenants/{tenant}/fleet', { params: { path: { tenant } } })),
    refetchInterval: REFRESH.fleet,
  });
  const data = fleet.data;
  return (
    <section className="card wide" aria-labelledby="fleet-title">
      <h2 id="fleet-title">Fleet</h2>
      <ErrorText error={fleet.error} />
      {fleet.isPending ? <Loading what="the fleet" /> : null}
      {data ? (
        <>
          <dl className="figures">
            <div>
              <dt>Devices</dt>
              <dd>{count(data.devices)}</dd>
            </div>
            <div>
              <dt>Seen in the last hour</dt>
              <dd>
                {count(data.seen_last_hour)} <span className="muted">{percent(data.seen_last_hour, data.devices)}</span>
              </dd>
            </div>
            <div>
              <dt>Seen in the last day</dt>
              <dd>
                {count(data.seen_last_day)} <span className="muted">{percent(data.seen_last_day, data.devices)}</span>
              </dd>
            </div>
          </dl>
          {data.versions.length === 0 ? (
            <p className="muted">No device has registered yet.</p>
          ) : (
            <BarChart
              caption={`Devices per firmware version and device type${data.versions_total > data.versions.length ? ` (the ${data.versions.length} largest of ${count(data.versions_total)})` : ''}`}
              total={data.devices}
              rows={data.versions.map((v) => ({ label: `${v.firmware_version} · ${v.device_type}`, value: v.devices }))}
            />
          )}
          <p className="muted small">
            Counted at {utc(data.at)}; refreshed every {REFRESH.fleet / 1000} s.
          </p>
        </>
      ) : null}
    </section>
  );
}

function ActiveRollouts({ tenant }: { tenant: string }) {
  const active = useRollouts(tenant, 'active', 1, 20);
  const paused = useRollouts(tenant, 'paused', 1, 20);
  const names = useNames(tenant);
  const rollouts = [...(active.data?.items ?? []), ...(paused.data?.items ?? [])];
  return (
    <section className="card" aria-labelledby="active-title">
      <h2 id="active-title">Rollouts under way</h2>
      <ErrorText error={active.error ?? paused.error} />
      {active.isPending ? <Loading what="rollouts" /> : null}
      {!active.isPending && rollouts.length === 0 ? <p className="muted">No rollout is active or paused.</p> : null}
      <ul className="rollout-list">
        {rollouts.map((rollout) => (
          <li key={rollout.id}>
            <div className="rollout-head">
              <Link to={withTenant(CONSOLE_PAGES.rollout.replace(':id', String(rollout.id)), tenant)}>{rollout.name}</Link>{' '}
              <StatusBadge status={rollout.status} />
            </div>
            <p className="muted small">
              {names.firmwareName(rollout.firmware_id)} to {names.groupName(rollout.group_id)}
            </p>
            <StateBar counts={rollout.devices} label={`Progress of ${rollout.name}`} legend={false} />
            <p className="small">
              {count(rollout.devices.confirmed)} of {count(rollout.targeted)} confirmed (
              {percent(rollout.devices.confirmed, rollout.targeted)})
              {retriable(rollout) > 0 ? `; ${count(retriable(rollout))} failed, fell back or timed out` : ''}
              {rollout.pause_reason ? (
                <span className="pause-line"> · {rollout.status === 'cancelled' ? 'cancelled' : 'paused'} by itself</span>
              ) : null}
              {rollout.awaiting_approval ? <span className="pause-line"> · waiting for approval</span> : null}
            </p>
          </li>
        ))}
      </ul>
      <Link to={withTenant(CONSOLE_PAGES.rollouts, tenant)}>All rollouts</Link>
    </section>
  );
}

function LedgerStatus() {
  const head = useLedgerHead();
  const verify = useMutation({ mutationFn: () => answer(api.GET('/ledger/verify')) });
  const last = head.data?.items[0];
  return (
    <section className="card" aria-labelledby="ledger-title">
      <h2 id="ledger-title">Ledger</h2>
      <ErrorText error={head.error} />
      {head.data ? (
        <p>
          {count(head.data.total)} entries. Head: entry {last ? `#${last.seq}` : '—'}, hash{' '}
          <code title={last?.hash}>{last ? shortHash(last.hash) : 'none'}</code>
        </p>
      ) : null}
      <VerifyResult result={verify.data} error={verify.error} />
      <div className="actions">
        <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
          {verify.isPending ? 'Verifying…' : 'Verify the ledger'}
        </button>
        <Link to={CONSOLE_PAGES.ledger}>Ledger entries</Link>
      </div>
    </section>
  );
}

/** The outcome of a ledger verification, in words. */
export function VerifyResult({ result, error }: { result: LedgerVerify | undefined; error: unknown }) {
  if (error) return <ErrorText error={error} />;
  if (!result) return null;
  if (!result.ok && !result.first_break && result.tuf.first_break) {
    return (
      <p className="error" role="alert">
        The signed update metadata (TUF) does not verify: {result.tuf.first_break.repository} — {result.tuf.first_break.reason}. The{' '}
        {count(result.entries)} ledger entries match their hashes.
      </p>
    );
  }
  return result.ok ? (
    <p className="ok" role="status">
      Verified: all {count(result.entries)} entries match their hashes; head <code title={result.head}>{shortHash(result.head)}</code>; the
      TUF metadata of {count(result.tuf.repositories)} repositories holds.
    </p>
  ) : (
    <p className="error" role="alert">
      The ledger does not verify: entry #{result.first_break?.seq} — {result.first_break?.reason}. {count(result.entries)} entries before it
      match.
    </p>
  );
}
