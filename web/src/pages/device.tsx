import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { CONSOLE_PAGES } from '#src/console/console-pages';
import { get, segment } from '#web/api/client';
import type { DeviceDetail } from '#web/api/types';
import { ErrorText, Loading } from '#web/components/feedback';
import { NoTenant, PageTitle } from '#web/components/page-title';
import { StatusBadge } from '#web/components/status';
import { Table } from '#web/components/table';
import { ago, utc } from '#web/format';
import { useTenant, withTenant } from '#web/tenant';

/** One device: what it runs, when it was seen, its groups and its rollout history. */
export function DevicePage() {
  const { mac = '' } = useParams();
  const { tenant, loading } = useTenant();
  return (
    <>
      <PageTitle title={`Device ${mac}`} />
      {tenant ? <Detail tenant={tenant} mac={mac} /> : loading ? <Loading what="tenants" /> : <NoTenant />}
    </>
  );
}

function Detail({ tenant, mac }: { tenant: string; mac: string }) {
  const device = useQuery({
    queryKey: ['device', tenant, mac],
    queryFn: () => get<DeviceDetail>(`tenants/${segment(tenant)}/devices/${segment(mac)}`),
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
          <dt>MAC</dt>
          <dd className="mono">{d.mac}</dd>
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
      </section>
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
      <section className="card wide" aria-labelledby="device-history">
        <h2 id="device-history">Rollout history</h2>
        {d.rollouts.length === 0 ? (
          <p className="muted">No rollout has targeted this device.</p>
        ) : (
          <Table caption={`Rollouts that target ${d.mac}`} hideCaption>
            <thead>
              <tr>
                <th scope="col">Rollout</th>
                <th scope="col">Rollout status</th>
                <th scope="col">Group</th>
                <th scope="col">Target version</th>
                <th scope="col">This device</th>
              </tr>
            </thead>
            <tbody>
              {d.rollouts.map((r) => (
                <tr key={r.id}>
                  <td>
                    <Link to={withTenant(CONSOLE_PAGES.rollout.replace(':id', String(r.id)), tenant)}>{r.name}</Link>
                  </td>
                  <td>
                    <StatusBadge status={r.status} />
                  </td>
                  <td>{r.group.name}</td>
                  <td>{r.version}</td>
                  <td>
                    {r.succeeded ? (
                      <>
                        updated at {utc(r.reported_at)}, reporting {r.reported_version}
                      </>
                    ) : (
                      'not updated yet'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </section>
    </div>
  );
}
