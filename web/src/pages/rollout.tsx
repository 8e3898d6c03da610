import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import {
  boundText,
  DEVICE_STATES,
  percentOfShare,
  notTargetedSentence,
  progressSentence,
  STATE_LABELS,
  STATE_MEANINGS,
} from '#src/operator/console/rollout-progress';
import { answer, api } from '#web/api/client';
import { REFRESH, useNames } from '#web/api/queries';
import type { DeviceState, Rollout, Wave } from '#web/api/types';
import { ConfirmButton } from '#web/components/confirm';
import { ErrorText, Loading, Status, ViewerNote } from '#web/components/feedback';
import { ForTenant, PageTitle } from '#web/components/page-title';
import { StateBadge, StatusBadge, WaveBadge } from '#web/components/status';
import { InlineSelect, PagedList, Table } from '#web/components/table';
import { ago, count, utc } from '#web/format';
import { isLive, nextWave, ROLLOUT_ACTIONS, StateBar, type RolloutAction } from '#web/rollout-view';
import { useSession } from '#web/session';
import { withTenant } from '#web/tenant';

/** One rollout: its plan, its progress per state and per wave (refreshed every 2 s while it may change), its devices and its actions. */
export function RolloutPage() {
  const { id = '' } = useParams();
  const { canChange } = useSession();
  const [params] = useSearchParams();
  return (
    <>
      <PageTitle title={`Rollout ${id}`} />
      {params.get('planned') ? <Status>Rollout planned as a draft. Start it when you are ready.</Status> : null}
      <ViewerNote />
      <ForTenant>{(tenant) => <Detail tenant={tenant} id={id} canChange={canChange} />}</ForTenant>
    </>
  );
}

/** `3h`, `90m`, `45s`: a window's length. */
function lengthText(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** The rollout's maintenance windows and ramp (docs/decisions.md §10.1), when it has them. */
function Schedule({ rollout: r }: { rollout: Rollout }) {
  if (r.windows.length === 0 && r.ramp === null) return null;
  const every = r.ramp ? Object.entries(r.ramp.increment_every)[0] : undefined;
  return (
    <div className="schedule small" role="status" aria-label="Maintenance windows and ramp">
      {r.windows.length > 0 ? (
        <p>
          <strong>Maintenance windows:</strong>{' '}
          {r.windows.map((w) => `${w.cron} (${w.time_zone}) for ${lengthText(w.duration_seconds)}`).join('; ')}.{' '}
          {r.window_open
            ? `Open now, until ${utc(r.window_closes_at)}.`
            : `Closed now: devices are not offered the installation until ${utc(r.next_window_at)}.`}
        </p>
      ) : null}
      {r.ramp ? (
        <p>
          <strong>Ramp:</strong> {r.ramp.base_per_minute} new offers a minute, ×{r.ramp.increment_factor} every{' '}
          {every ? `${every[1]} ${every[0]}` : ''}, at most {r.ramp.maximum_per_minute} a minute.
        </p>
      ) : null}
    </div>
  );
}

/** The rollout's abort criteria and timeouts (docs/decisions.md §10.2), when it has them. */
function Guards({ rollout: r }: { rollout: Rollout }) {
  const timeouts = (['offered', 'downloading', 'installed'] as const).filter((state) => r.timeouts[state] != null);
  if (r.abort_criteria.length === 0 && timeouts.length === 0) return null;
  return (
    <div className="schedule small" role="status" aria-label="Abort criteria and timeouts">
      {r.abort_criteria.length > 0 ? (
        <p>
          <strong>Abort criteria:</strong>{' '}
          {r.abort_criteria
            .map(
              (c) =>
                `${c.action} when ${c.failure.replace('_', ' ')} reaches ${c.threshold_percentage} % of at least ${c.min_finished} finished`,
            )
            .join('; ')}
          .
        </p>
      ) : null}
      {timeouts.length > 0 ? (
        <p>
          <strong>Timeouts:</strong> {timeouts.map((state) => `${state} ${lengthText(r.timeouts[state] ?? 0)}`).join(', ')}; longer is timed
          out.
        </p>
      ) : null}
    </div>
  );
}

/** The rollout's rollback policy and the rollouts it is linked to (docs/decisions.md §10.4), when it has any. */
function Rollback({ rollout: r, tenant, firmwareName }: { rollout: Rollout; tenant: string; firmwareName: (id: number) => string }) {
  if (r.rollback === null && r.rollback_rollout_id === null && r.rollback_of === null) return null;
  const linkTo = (id: number) => <Link to={withTenant(CONSOLE_PAGES.rollout.replace(':id', String(id)), tenant)}>rollout {id}</Link>;
  const policy = r.rollback;
  const triggers = policy
    ? [
        policy.failed_percentage !== null ? `${policy.failed_percentage} % of the targets` : null,
        policy.failed_count !== null ? `${policy.failed_count} device${policy.failed_count === 1 ? '' : 's'}` : null,
      ].filter((t) => t !== null)
    : [];
  return (
    <div className="schedule small" role="status" aria-label="Rollback">
      {policy ? (
        <p>
          <strong>Rollback:</strong> once {triggers.join(' or ')} failed, fell back or timed out, stop and bring{' '}
          {policy.scope === 'all' ? 'every device that took it' : 'those devices'} back to {firmwareName(policy.firmware_id)}.
        </p>
      ) : null}
      {r.rollback_rollout_id !== null ? <p>Rolled back by {linkTo(r.rollback_rollout_id)}.</p> : null}
      {r.rollback_of !== null ? <p>Rolls back {linkTo(r.rollback_of)}.</p> : null}
    </div>
  );
}

function Detail({ tenant, id, canChange }: { tenant: string; id: string; canChange: boolean }) {
  const names = useNames(tenant);
  const rollout = useQuery({
    queryKey: ['rollout', tenant, id],
    queryFn: () => answer(api.GET('/tenants/{tenant}/rollouts/{id}', { params: { path: { tenant, id: Number(id) } } })),
    refetchInterval: (query) => (query.state.data && !isLive(query.state.data.status) ? false : REFRESH.rollout),
  });
  if (rollout.isPending) return <Loading what="the rollout" />;
  if (rollout.error && !rollout.data) return <ErrorText error={rollout.error} />;
  const r = rollout.data;
  const waves = r.waves;
  const notTargeted = notTargetedSentence(r.not_applicable, r.not_registered, count);
  return (
    <div className="grid">
      <section className="card wide" aria-labelledby="rollout-title">
        <div className="section-head">
          <h2 id="rollout-title">{r.name}</h2>
          <StatusBadge status={r.status} />
        </div>
        <ErrorText error={rollout.error} />
        {r.pause_reason ? (
          <div className="pause-reason" role="status" aria-labelledby="pause-reason-title">
            <h3 id="pause-reason-title">{r.status === 'cancelled' ? 'Cancelled by itself' : 'Paused by itself'}</h3>
            <p>{r.pause_reason}.</p>
            {r.status === 'cancelled' ? null : (
              <p className="small">Look at the failed devices below; retry them or resume when the cause is fixed.</p>
            )}
          </div>
        ) : null}
        {r.awaiting_approval ? (
          <div className="awaiting" role="status">
            <strong>Waiting for approval:</strong> wave {r.current_wave} reached its success threshold
            {` (${percentOfShare(r.success_threshold)} confirmed)`}. Wave {nextWave(r)} starts when an admin approves it.
          </div>
        ) : null}
        <StateBar counts={r.devices} label={`Progress of ${r.name}`} />
        <p aria-live="polite" className="progress-line">
          {progressSentence(r.devices, count)}; last change {ago(r.last_activity_at)}.
        </p>
        {notTargeted ? <p className="small not-targeted">{notTargeted}</p> : null}
        <Schedule rollout={r} />
        <Guards rollout={r} />
        <Rollback rollout={r} tenant={tenant} firmwareName={(fid) => names.firmwareName(fid)} />
        {isLive(r.status) ? <p className="muted small">Refreshed every {REFRESH.rollout / 1000} s.</p> : null}
        {canChange ? <Actions tenant={tenant} rollout={r} /> : null}
        <details className="states-help">
          <summary>What the states mean</summary>
          <dl className="facts">
            {DEVICE_STATES.map((state) => (
              <div key={state} className="fact">
                <dt>{STATE_LABELS[state]}</dt>
                <dd>{STATE_MEANINGS[state]}</dd>
              </div>
            ))}
          </dl>
        </details>
      </section>
      {waves.length > 0 ? (
        <section className="card wide" aria-labelledby="waves-title">
          <h2 id="waves-title">Waves</h2>
          <ol className="waves">
            {waves.map((wave) => (
              <WaveItem key={wave.wave} rollout={r} wave={wave} />
            ))}
          </ol>
        </section>
      ) : null}
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
          {waves.length > 0 ? (
            <>
              <dt>Waves</dt>
              <dd>{waves.map((w) => w.bound).join(', ')}</dd>
            </>
          ) : null}
          <dt>Success threshold</dt>
          <dd>{percentOfShare(r.success_threshold)} of a wave confirmed</dd>
          <dt>Error threshold</dt>
          <dd>
            {r.error_threshold === null
              ? 'none: it never pauses by itself'
              : `pauses once over ${percentOfShare(r.error_threshold)} of a wave failed or fell back`}
          </dd>
          <dt>Next wave</dt>
          <dd>{r.approval === 'manual' ? 'starts when an admin approves it' : 'starts by itself'}</dd>
          <dt>Last change</dt>
          <dd>{utc(r.last_activity_at)}</dd>
        </dl>
      </section>
      {waves.length > 0 ? <Devices tenant={tenant} rollout={r} /> : null}
    </div>
  );
}

/** One wave: its bound, its status, when it started, and its devices per state. */
function WaveItem({ rollout, wave }: { rollout: Rollout; wave: Wave }) {
  const last = wave.wave === rollout.waves.length;
  const current = wave.wave === rollout.current_wave && rollout.status !== 'draft';
  return (
    <li className={current ? 'wave current' : 'wave'} aria-labelledby={`wave-${wave.wave}`}>
      <div className="section-head">
        <h3 id={`wave-${wave.wave}`}>
          Wave {wave.wave}: {wave.bound}
        </h3>
        <WaveBadge status={wave.status} />
        {current ? <span className="muted small">current wave</span> : null}
      </div>
      <p className="muted small">
        {boundText(wave.bound, last)} · {count(wave.devices.targeted)} devices ·{' '}
        {wave.started_at ? `started ${utc(wave.started_at)}` : 'not started'}
      </p>
      <StateBar counts={wave.devices} label={`Progress of wave ${wave.wave}`} />
      <p className="small">{progressSentence(wave.devices, count)}.</p>
    </li>
  );
}

const DEVICES_PER_PAGE = 25;

/** The rollout's devices, by state and wave, with each one's failure message. */
function Devices({ tenant, rollout }: { tenant: string; rollout: Rollout }) {
  const [state, setState] = useState<DeviceState | ''>('');
  const [wave, setWave] = useState<number | ''>('');
  const [page, setPage] = useState(1);
  const query = { state: state || undefined, wave: wave || undefined, page, per_page: DEVICES_PER_PAGE };
  const devices = useQuery({
    queryKey: ['rollout-devices', tenant, rollout.id, query],
    queryFn: () => answer(api.GET('/tenants/{tenant}/rollouts/{id}/devices', { params: { path: { tenant, id: rollout.id }, query } })),
    placeholderData: keepPreviousData,
    refetchInterval: isLive(rollout.status) ? REFRESH.rollout : false,
  });
  return (
    <section className="card wide" aria-labelledby="rollout-devices-title">
      <div className="section-head">
        <h2 id="rollout-devices-title">Devices of this rollout</h2>
        <InlineSelect
          id="rollout-devices-state"
          label="State"
          value={state}
          options={[['', 'any'], ...DEVICE_STATES.map((s) => [s, `${STATE_LABELS[s]} (${count(rollout.devices[s])})`] as const)]}
          onChange={(value) => {
            setState(value);
            setPage(1);
          }}
        />
        <InlineSelect
          id="rollout-devices-wave"
          label="Wave"
          value={wave}
          options={[['', 'any'], ...rollout.waves.map((w) => [w.wave, `wave ${w.wave}`] as const)]}
          onChange={(value) => {
            setWave(value);
            setPage(1);
          }}
        />
      </div>
      <PagedList
        list={devices}
        what="devices"
        loading="the rollout's devices"
        empty={`No device${state ? ` is ${STATE_LABELS[state]}` : ''}.`}
        page={page}
        perPage={DEVICES_PER_PAGE}
        onPage={setPage}
      >
        {(items) => (
          <Table caption={`Devices of ${rollout.name}`} hideCaption>
            <thead>
              <tr>
                <th scope="col">MAC</th>
                <th scope="col">Name</th>
                <th scope="col">Wave</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Since (UTC)</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr key={d.mac}>
                  <td className="mono">
                    <Link to={withTenant(CONSOLE_PAGES.device.replace(':mac', encodeURIComponent(d.mac)), tenant)}>{d.mac}</Link>
                  </td>
                  <td>{d.name}</td>
                  <td>{d.wave}</td>
                  <td>
                    <StateBadge state={d.state} />
                  </td>
                  <td>{d.attempts}</td>
                  <td>{utc(d.updated_at)}</td>
                  <td className={d.state === 'failed' ? 'failure' : undefined}>
                    {d.decision.reason}
                    {d.decision.until ? `, until ${utc(d.decision.until)}` : ''}
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

/** The lifecycle actions the rollout's state allows; a refusal is shown next to the buttons. */
function Actions({ tenant, rollout }: { tenant: string; rollout: Rollout }) {
  const client = useQueryClient();
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const allowed = ROLLOUT_ACTIONS.filter((a) => a.offered(rollout));
  if (allowed.length === 0) return null;

  const run = async (action: RolloutAction) => {
    setBusy(action.action);
    setError(undefined);
    setDone(undefined);
    try {
      const request = { params: { path: { tenant, id: rollout.id } } };
      let changed: Rollout;
      if (action.action === 'retry') {
        const result = await answer(api.POST('/tenants/{tenant}/rollouts/{id}/retry', request));
        changed = result.rollout;
        setDone(
          `${count(result.retried)} device${result.retried === 1 ? '' : 's'} sent back to pending: they are offered the rollout again` +
            (changed.status === 'paused' ? ' once it is resumed.' : '.'),
        );
      } else {
        changed = await answer(api.POST(`/tenants/{tenant}/rollouts/{id}/${action.action}`, request));
        if (action.action === 'approve') setDone(`Wave ${changed.current_wave} started.`);
      }
      client.setQueryData(['rollout', tenant, String(rollout.id)], changed);
      await Promise.all([
        client.invalidateQueries({ queryKey: ['rollouts', tenant] }),
        client.invalidateQueries({ queryKey: ['rollout-devices', tenant, rollout.id] }),
      ]);
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
              label={action.label(rollout)}
              title={`${action.label(rollout)}: ${rollout.name}?`}
              confirmLabel={action.label(rollout)}
              danger
              onConfirm={() => run(action)}
            >
              <p>{action.confirm}</p>
            </ConfirmButton>
          ) : (
            <button key={action.action} type="button" disabled={busy !== undefined} onClick={() => void run(action).catch(() => undefined)}>
              {busy === action.action ? 'Working…' : action.label(rollout)}
            </button>
          ),
        )}
      </div>
      <ErrorText error={error} />
      {done ? <Status>{done}</Status> : null}
    </div>
  );
}
