import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { answer, api } from '#web/api/client';
import type { Decision, DeviceWithToken } from '#web/api/types';
import { ConfirmButton } from '#web/components/confirm';
import { ErrorText, Loading } from '#web/components/feedback';
import { SecretOnce } from '#web/components/secret-once';
import { useSession } from '#web/session';
import { ForTenant, PageTitle } from '#web/components/page-title';
import { StateBadge, StatusBadge } from '#web/components/status';
import { ago, utc } from '#web/format';
import { withTenant } from '#web/tenant';

/** What a DDI device does with its target token (the console shows it once). */
export const TARGET_TOKEN_USE =
  'The device sends it as `Authorization: TargetToken <token>` (SWUpdate: -k, or targettoken); only its SHA-256 is kept.';

/** One device: what it runs, when it was seen, its attributes, its groups and its rollout history. */
export function DevicePage() {
  const { mac = '' } = useParams();
  return (
    <>
      <PageTitle title={`Device ${mac}`} />
      <ForTenant>{(tenant) => <Detail tenant={tenant} mac={mac} />}</ForTenant>
    </>
  );
}

function Detail({ tenant, mac }: { tenant: string; mac: string }) {
  const device = useQuery({
    queryKey: ['device', tenant, mac],
    queryFn: () => answer(api.GET('/tenants/{tenant}/devices/{mac}', { params: { path: { tenant, mac } } })),
    refetchInterval: 10_000,
  });
  if (device.isPending) return <Loading what="the device" />;
  if (device.error) return <ErrorText error={device.error} />;
  const d = device.data;
  return (
    <div className="grid">
      <section className="card" aria-labelledby="device-facts">
        <h2 id="device-facts">{d.name}</h2>
        <dl className="facts">
          <dt>{d.protocol === 'ddi' ? 'Controller id' : 'MAC'}</dt>
          <dd className="mono">{d.mac}</dd>
          <dt>Protocol</dt>
          <dd>{d.protocol === 'ddi' ? `hawkBit DDI${d.has_target_token ? ', with a target token' : ', by gateway token'}` : 'asvin'}</dd>
          <dt>Firmware version</dt>
          <dd>{d.firmware_version}</dd>
          <dt>Device type</dt>
          <dd>{d.device_type}</dd>
          <dt>Last seen</dt>
          <dd>
            {ago(d.last_seen_at)} <span className="muted">({utc(d.last_seen_at)})</span>
          </dd>
          <dt>Registered</dt>
          <dd>{utc(d.created_at)}</dd>
        </dl>
        {d.has_target_token ? <RotateToken tenant={tenant} mac={d.mac} /> : null}
      </section>
      <section className="card" aria-labelledby="device-attributes">
        <h2 id="device-attributes">Attributes</h2>
        {d.attributes === null ? (
          <p className="muted">None reported.</p>
        ) : (
          <dl className="facts">
            {Object.entries(d.attributes).map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd className="mono">{value}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      <Labels tenant={tenant} mac={d.mac} labels={d.labels} />
      <section className="card" aria-labelledby="device-groups">
        <h2 id="device-groups">Groups</h2>
        {d.groups.length === 0 ? (
          <p className="muted">In no group.</p>
        ) : (
          <ul>
            {d.groups.map((g) => (
              <li key={g.id}>
                <Link to={withTenant(CONSOLE_PAGES.group.replace(':group', encodeURIComponent(g.name)), tenant)}>{g.name}</Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      <Decisions tenant={tenant} mac={d.mac} />
      <History tenant={tenant} mac={d.mac} />
    </div>
  );
}

/**
 * The device's labels (docs/decisions.md §10.3), which dynamic groups filter by; admins edit them as
 * one line of `key=value` or plain words, saved with `PUT …/devices/:mac/labels` (replacing them).
 */
function Labels({ tenant, mac, labels }: { tenant: string; mac: string; labels: string[] }) {
  const { canChange } = useSession();
  const client = useQueryClient();
  const [draft, setDraft] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const next = (draft ?? '').split(/[\s,]+/).filter((label) => label !== '');
      await answer(api.PUT('/tenants/{tenant}/devices/{mac}/labels', { params: { path: { tenant, mac } }, body: { labels: next } }));
      setDraft(undefined);
      await client.invalidateQueries({ queryKey: ['device', tenant, mac] });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="device-labels">
      <h2 id="device-labels">Labels</h2>
      {labels.length === 0 ? (
        <p className="muted">No labels.</p>
      ) : (
        <ul className="tags" aria-label={`Labels of ${mac}`}>
          {labels.map((label) => (
            <li key={label} className="mono">
              {label}
            </li>
          ))}
        </ul>
      )}
      {canChange ? (
        draft === undefined ? (
          <div className="actions">
            <button type="button" onClick={() => setDraft(labels.join(' '))}>
              Edit labels
            </button>
          </div>
        ) : (
          <form className="stack" onSubmit={(e) => void save(e)}>
            <label>
              Labels (key=value or a word, separated by spaces; at most 20)
              <input value={draft} onChange={(e) => setDraft(e.target.value)} className="mono" autoFocus />
            </label>
            <ErrorText error={error} />
            <div className="actions">
              <button type="submit" disabled={busy}>
                {busy ? 'Saving…' : 'Save labels'}
              </button>
              <button type="button" onClick={() => setDraft(undefined)}>
                Cancel
              </button>
            </div>
          </form>
        )
      ) : null}
    </section>
  );
}

/** Gives the device a new target token (admins only), shown once; the old one stops working at once. */
function RotateToken({ tenant, mac }: { tenant: string; mac: string }) {
  const { canChange } = useSession();
  const [token, setToken] = useState<string>();
  if (!canChange) return null;
  const rotate = async () => {
    const device: DeviceWithToken = await answer(
      api.POST('/tenants/{tenant}/devices/{mac}/target-token/rotate', { params: { path: { tenant, mac } } }),
    );
    setToken(device.target_token);
  };
  return (
    <>
      {token ? (
        <SecretOnce title={`Target token of ${mac}`} secret={token} use={TARGET_TOKEN_USE} onDone={() => setToken(undefined)} />
      ) : null}
      <ConfirmButton label="Rotate target token" title={`New target token for ${mac}`} confirmLabel="Rotate" danger onConfirm={rotate}>
        <p>The device’s current target token stops working at once: configure the device with the new one.</p>
      </ConfirmButton>
    </>
  );
}

/** Each kind of decision in words, as the device page's sentence starts (docs/decisions.md §10.5). */
const DECISION_WORDS: Record<Decision['kind'], string> = {
  offer: 'Offered',
  wait: 'Waiting',
  skip: 'Skipped',
  settled: 'Done',
};

/**
 * Why the device gets, waits for or skips each running rollout of its groups
 * (`GET …/devices/:mac/decisions`): the decision in words, with when a wait ends.
 */
function Decisions({ tenant, mac }: { tenant: string; mac: string }) {
  const decisions = useQuery({
    queryKey: ['device-decisions', tenant, mac],
    queryFn: () => answer(api.GET('/tenants/{tenant}/devices/{mac}/decisions', { params: { path: { tenant, mac } } })),
    refetchInterval: 10_000,
  });
  return (
    <section className="card wide" aria-labelledby="device-decisions">
      <h2 id="device-decisions">Why: running rollouts</h2>
      <ErrorText error={decisions.error} />
      {decisions.isPending ? <Loading what="the decisions" /> : null}
      {decisions.data?.items.length === 0 ? <p className="muted">No active or paused rollout names a group of this device.</p> : null}
      <ul>
        {decisions.data?.items.map((d) => (
          <li key={d.rollout_id}>
            <Link to={withTenant(CONSOLE_PAGES.rollout.replace(':id', String(d.rollout_id)), tenant)}>{d.rollout_name}</Link>:{' '}
            <strong>{DECISION_WORDS[d.kind]}</strong> — {d.reason}
            {d.until ? (
              <>
                , until <time dateTime={d.until}>{utc(d.until)}</time>
              </>
            ) : null}
            .
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The rollouts that target the device, newest first, each with the device's states in it and their times. */
function History({ tenant, mac }: { tenant: string; mac: string }) {
  const history = useQuery({
    queryKey: ['device-rollouts', tenant, mac],
    queryFn: () => answer(api.GET('/tenants/{tenant}/devices/{mac}/rollouts', { params: { path: { tenant, mac } } })),
    refetchInterval: 10_000,
  });
  const items = [...(history.data ?? [])].reverse();
  return (
    <section className="card wide" aria-labelledby="device-history">
      <h2 id="device-history">Rollout history</h2>
      <ErrorText error={history.error} />
      {history.isPending ? <Loading what="the rollout history" /> : null}
      {history.data?.length === 0 ? <p className="muted">No rollout has targeted this device.</p> : null}
      <ul className="history">
        {items.map((r) => (
          <li key={r.rollout_id} aria-labelledby={`history-${r.rollout_id}`}>
            <div className="section-head">
              <h3 id={`history-${r.rollout_id}`}>
                <Link to={withTenant(CONSOLE_PAGES.rollout.replace(':id', String(r.rollout_id)), tenant)}>{r.rollout_name}</Link>
              </h3>
              <StatusBadge status={r.rollout_status} />
            </div>
            <p>
              Version {r.version}, wave {r.wave}: this device is <StateBadge state={r.state} />
              {r.attempts > 1 ? ` after ${r.attempts} attempts` : ''}
              {r.reported_version && (r.state === 'installed' || r.state === 'fell_back')
                ? `; its success report was sent on ${r.reported_version}`
                : ''}
              .
            </p>
            {r.failure_message ? (
              <p className={r.state === 'failed' ? 'failure' : 'muted'}>
                {r.state === 'failed' ? 'Failure' : 'Last failure (before a retry)'}: {r.failure_message}
              </p>
            ) : null}
            <ol className="timeline" aria-label={`States of ${mac} in ${r.rollout_name}`}>
              {r.history.map((change, i) => (
                <li key={i}>
                  <StateBadge state={change.state} /> <time dateTime={change.at}>{utc(change.at)}</time>
                  {change.message ? <span className="muted"> — {change.message}</span> : null}
                </li>
              ))}
            </ol>
          </li>
        ))}
      </ul>
    </section>
  );
}
