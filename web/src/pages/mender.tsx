import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { answer, api } from '#web/api/client';
import { AUTH_SET_STATUSES, type AuthSet, type AuthSetStatus } from '#web/api/types';
import { ErrorText, InputError, ViewerNote } from '#web/components/feedback';
import { ForTenant, PageTitle } from '#web/components/page-title';
import { InlineSelect, PagedList, Table } from '#web/components/table';
import { utc } from '#web/format';
import { useSession } from '#web/session';

/** How often the pending list asks again, milliseconds: a device asks to be admitted every few seconds to minutes. */
const REFRESH_MS = 5_000;

/**
 * Mender devices of the chosen tenant (docs/mender-devices.md): the devices that asked to be
 * admitted, with their identity and key fingerprint, to accept or reject; preauthorization of a
 * device's identity and public key.
 */
export function MenderPage() {
  return (
    <>
      <PageTitle title="Mender devices" />
      <ViewerNote />
      <ForTenant>{(tenant) => <MenderDevices tenant={tenant} key={tenant} />}</ForTenant>
    </>
  );
}

function MenderDevices({ tenant }: { tenant: string }) {
  const { canChange } = useSession();
  return (
    <>
      <AuthSets tenant={tenant} canChange={canChange} />
      {canChange ? <Preauthorize tenant={tenant} /> : null}
    </>
  );
}

function AuthSets({ tenant, canChange }: { tenant: string; canChange: boolean }) {
  const client = useQueryClient();
  const [status, setStatus] = useState<AuthSetStatus>('pending');
  const [page, setPage] = useState(1);
  const sets = useQuery({
    queryKey: ['auth-sets', tenant, status, page],
    queryFn: () =>
      answer(api.GET('/tenants/{tenant}/device-auth-sets', { params: { path: { tenant }, query: { status, page, per_page: 50 } } })),
    placeholderData: keepPreviousData,
    refetchInterval: REFRESH_MS,
  });
  const decide = useMutation({
    mutationFn: ({ id, verb }: { id: number; verb: 'accept' | 'reject' }): Promise<AuthSet> =>
      verb === 'accept'
        ? answer(api.POST('/tenants/{tenant}/device-auth-sets/{id}/accept', { params: { path: { tenant, id } } }))
        : answer(api.POST('/tenants/{tenant}/device-auth-sets/{id}/reject', { params: { path: { tenant, id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['auth-sets', tenant] }),
  });
  const title = status === 'pending' ? 'Devices waiting to be accepted' : `Devices ${status}`;

  return (
    <section className="card" aria-labelledby="auth-sets-title">
      <h2 id="auth-sets-title">{title}</h2>
      <p className="muted">
        A Mender device asks to be admitted with its identity and public key, and a device key of the tenant as its tenant token. Compare
        the key fingerprint with the device’s own (<code>openssl pkey -pubin -outform DER | sha256sum</code>) before you accept it.
      </p>
      <InlineSelect
        id="auth-set-status"
        label="Show"
        value={status}
        options={AUTH_SET_STATUSES.map((s) => [s, s] as const)}
        onChange={(value) => {
          setStatus(value);
          setPage(1);
        }}
      />
      <ErrorText error={decide.error} />
      <PagedList
        list={sets}
        what="devices"
        empty={status === 'pending' ? 'No device is waiting.' : `No device is ${status}.`}
        page={page}
        perPage={50}
        onPage={setPage}
      >
        {(items) => (
          <Table caption={title} hideCaption>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Identity</th>
                <th scope="col">Key</th>
                <th scope="col">Device type</th>
                <th scope="col">Asked</th>
                {canChange ? <th scope="col">Action</th> : null}
              </tr>
            </thead>
            <tbody>
              {items.map((set) => (
                <tr key={set.id}>
                  <td className="mono">{set.identifier}</td>
                  <td className="mono">{identityText(set.id_data)}</td>
                  <td>
                    {set.key_type} <span className="mono" title={set.fingerprint}>{`${set.fingerprint.slice(0, 16)}…`}</span>
                  </td>
                  <td>{set.device_type ?? <span className="muted">not seen yet</span>}</td>
                  <td>{utc(set.created_at)}</td>
                  {canChange ? (
                    <td>
                      {set.status !== 'accepted' ? (
                        <button type="button" disabled={decide.isPending} onClick={() => decide.mutate({ id: set.id, verb: 'accept' })}>
                          Accept {set.identifier}
                        </button>
                      ) : null}{' '}
                      {set.status !== 'rejected' ? (
                        <button
                          type="button"
                          className="secondary"
                          disabled={decide.isPending}
                          onClick={() => decide.mutate({ id: set.id, verb: 'reject' })}
                        >
                          Reject {set.identifier}
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </PagedList>
    </section>
  );
}

/** An identity as one line: `mac=…, serial=…`. */
function identityText(identity: Record<string, string | string[]>): string {
  return Object.entries(identity)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join(',') : value}`)
    .join(', ');
}

function Preauthorize({ tenant }: { tenant: string }) {
  const client = useQueryClient();
  const [mac, setMac] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const [done, setDone] = useState<AuthSet>();
  const preauthorize = useMutation({
    mutationFn: () => {
      if (!publicKey.includes('BEGIN PUBLIC KEY')) throw new InputError('Paste the device’s public key, PEM (-----BEGIN PUBLIC KEY-----).');
      return answer(api.POST('/tenants/{tenant}/device-auth-sets', { params: { path: { tenant } }, body: { mac, public_key: publicKey } }));
    },
    onSuccess: (set) => {
      setDone(set);
      setMac('');
      setPublicKey('');
      void client.invalidateQueries({ queryKey: ['auth-sets', tenant] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    preauthorize.mutate();
  };
  return (
    <section className="card" aria-labelledby="preauthorize-title">
      <h2 id="preauthorize-title">Preauthorize a device</h2>
      <p className="muted">The device is accepted on its first request when it sends this mac and signs with this key.</p>
      <form onSubmit={submit} aria-label="Preauthorize a device">
        <div className="field">
          <label htmlFor="preauthorize-mac">Its mac</label>
          <input id="preauthorize-mac" required value={mac} onChange={(e) => setMac(e.target.value)} placeholder="02:00:00:00:00:01" />
        </div>
        <div className="field">
          <label htmlFor="preauthorize-key">Its public key (PEM)</label>
          <textarea id="preauthorize-key" required rows={5} value={publicKey} onChange={(e) => setPublicKey(e.target.value)} />
        </div>
        <button type="submit" disabled={preauthorize.isPending}>
          {preauthorize.isPending ? 'Preauthorizing…' : 'Preauthorize'}
        </button>
        <ErrorText error={preauthorize.error} />
        {done ? (
          <p role="status">
            {done.identifier} is {done.status} ({done.key_type} key {done.fingerprint.slice(0, 16)}…).
          </p>
        ) : null}
      </form>
    </section>
  );
}
