import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { answer, api } from '#web/api/client';
import type { DeviceKey, TenantWithKey } from '#web/api/types';
import { ConfirmButton } from '#web/components/confirm';
import { ErrorText, Loading, ViewerNote } from '#web/components/feedback';
import { PageTitle } from '#web/components/page-title';
import { SecretOnce } from '#web/components/secret-once';
import { PagedList, Table } from '#web/components/table';
import { utc } from '#web/format';
import { useSession } from '#web/session';
import { useTenant } from '#web/tenant';

/** A secret to show once, and what it is. */
interface Shown {
  title: string;
  secret: string;
  use: string;
}

const CUSTOMER_KEY_USE = 'Devices sign their logins with it (it is never sent); the server keeps it only to check those signatures.';
const DEVICE_KEY_USE = 'Devices of this type send it when they log in, with a signature made with the customer key.';
const GATEWAY_KEY_USE =
  'Devices of this type send it when they log in, with a signature made with the customer key. It is also a hawkBit gateway ' +
  'token (Authorization: GatewayToken): it speaks for every DDI device of the tenant, so give it only to the gateway.';

/** Tenants with their customer keys, and the device keys of the chosen tenant. */
export function KeysPage() {
  const { canChange } = useSession();
  const { tenant, tenants, loading, choose } = useTenant();
  const client = useQueryClient();
  const [shown, setShown] = useState<Shown>();

  const refreshTenants = () => client.invalidateQueries({ queryKey: ['tenants'] });

  return (
    <>
      <PageTitle title="Tenants & keys" />
      <ViewerNote />
      {shown ? <SecretOnce {...shown} onDone={() => setShown(undefined)} /> : null}
      <section className="card" aria-labelledby="tenants-title">
        <h2 id="tenants-title">Tenants</h2>
        {canChange ? (
          <CreateTenant
            onCreated={(created) => {
              void refreshTenants();
              choose(created.name);
              setShown({ title: `Customer key of ${created.name}`, secret: created.customer_key, use: CUSTOMER_KEY_USE });
            }}
          />
        ) : null}
        {loading ? <Loading what="tenants" /> : null}
        {!loading && tenants.length === 0 ? <p className="muted">No tenant yet.</p> : null}
        {tenants.length > 0 ? (
          <Table caption="Tenants" hideCaption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Created</th>
                {canChange ? <th scope="col">Customer key</th> : null}
              </tr>
            </thead>
            <tbody>
              {tenants.map((t) => (
                <tr key={t.id} aria-current={t.name === tenant ? 'true' : undefined}>
                  <td>
                    {t.name} {t.name === tenant ? <span className="muted">(chosen)</span> : null}
                  </td>
                  <td>{t.id}</td>
                  <td>{utc(t.created_at)}</td>
                  {canChange ? (
                    <td>
                      <ConfirmButton
                        label={`Rotate key of ${t.name}`}
                        title={`Rotate the customer key of ${t.name}?`}
                        confirmLabel="Rotate the customer key"
                        danger
                        onConfirm={async () => {
                          const rotated = await answer(
                            api.POST('/tenants/{tenant}/customer-key/rotate', { params: { path: { tenant: t.name } } }),
                          );
                          setShown({ title: `New customer key of ${t.name}`, secret: rotated.customer_key, use: CUSTOMER_KEY_USE });
                        }}
                      >
                        <p>
                          A new customer key replaces the current one. Logins signed with the current key are refused at once; device tokens
                          already issued stay valid until they expire. Every device must get the new key.
                        </p>
                      </ConfirmButton>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </Table>
        ) : null}
      </section>
      {tenant ? (
        <DeviceKeys
          tenant={tenant}
          canChange={canChange}
          onCreated={(key) =>
            setShown({
              title: `Device key for ${key.device_type} devices of ${tenant}`,
              secret: key.key,
              use: key.ddi_gateway ? GATEWAY_KEY_USE : DEVICE_KEY_USE,
            })
          }
        />
      ) : null}
    </>
  );
}

function CreateTenant({ onCreated }: { onCreated: (tenant: TenantWithKey) => void }) {
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => answer(api.POST('/tenants', { body: { name } })),
    onSuccess: (created) => {
      setName('');
      onCreated(created);
    },
  });
  return (
    <CreateForm
      name="Create a tenant"
      id="tenant-name"
      label="New tenant name"
      maxLength={128}
      value={name}
      onChange={setName}
      create={create}
      button="Create tenant"
    />
  );
}

/**
 * A form of one text field that creates something: the field, any `options` (checkboxes) after it,
 * its button ("Creating…" while it works) and the refusal.
 */
function CreateForm({
  name,
  id,
  label,
  maxLength,
  value,
  onChange,
  create,
  button,
  options,
}: {
  name: string;
  id: string;
  label: string;
  maxLength: number;
  value: string;
  onChange: (value: string) => void;
  create: { mutate: () => void; isPending: boolean; error: unknown };
  button: string;
  options?: ReactNode;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form className="inline-form" onSubmit={submit} aria-label={name}>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input id={id} required maxLength={maxLength} value={value} onChange={(e) => onChange(e.target.value)} />
      </div>
      {options}
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : button}
      </button>
      <ErrorText error={create.error} />
    </form>
  );
}

/** The device key as a list shows it: enough to tell keys apart; the whole key is shown once, when it is created. */
const maskedKey = (key: string): string => `${key.slice(0, 6)}…`;

function DeviceKeys({ tenant, canChange, onCreated }: { tenant: string; canChange: boolean; onCreated: (key: DeviceKey) => void }) {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [deviceType, setDeviceType] = useState('ESP32');
  const [ddiGateway, setDdiGateway] = useState(false);
  const keys = useQuery({
    queryKey: ['device-keys', tenant, page],
    queryFn: () => answer(api.GET('/tenants/{tenant}/device-keys', { params: { path: { tenant }, query: { page, per_page: 50 } } })),
    placeholderData: keepPreviousData,
  });
  const refresh = () => client.invalidateQueries({ queryKey: ['device-keys', tenant] });
  const create = useMutation({
    mutationFn: () =>
      answer(
        api.POST('/tenants/{tenant}/device-keys', {
          params: { path: { tenant } },
          body: { device_type: deviceType, ddi_gateway: ddiGateway },
        }),
      ),
    onSuccess: (key) => {
      setDdiGateway(false);
      void refresh();
      onCreated(key);
    },
  });

  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title">Device keys of {tenant}</h2>
      {canChange ? (
        <CreateForm
          name="Create a device key"
          id="device-type"
          label="Device type of the new key"
          maxLength={64}
          value={deviceType}
          onChange={setDeviceType}
          create={create}
          button="Create device key"
          options={
            <div className="check">
              <input id="device-key-ddi-gateway" type="checkbox" checked={ddiGateway} onChange={(e) => setDdiGateway(e.target.checked)} />
              <label htmlFor="device-key-ddi-gateway">hawkBit gateway token (speaks for every DDI device of the tenant)</label>
            </div>
          }
        />
      ) : null}
      <PagedList list={keys} what="device keys" empty="No device key yet." page={page} perPage={50} onPage={setPage}>
        {(items) => (
          <Table caption={`Device keys of ${tenant}`} hideCaption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Key</th>
                <th scope="col">Device type</th>
                <th scope="col">DDI gateway</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
                {canChange ? <th scope="col">Action</th> : null}
              </tr>
            </thead>
            <tbody>
              {items.map((key) => (
                <tr key={key.id}>
                  <td>{key.id}</td>
                  <td className="mono">{maskedKey(key.key)}</td>
                  <td>{key.device_type}</td>
                  <td>{key.ddi_gateway ? 'yes' : 'no'}</td>
                  <td>
                    {key.revoked ? (
                      <span className="badge badge-cancelled">revoked</span>
                    ) : (
                      <span className="badge badge-active">active</span>
                    )}
                  </td>
                  <td>{utc(key.created_at)}</td>
                  {canChange ? (
                    <td>
                      {key.revoked ? null : (
                        <ConfirmButton
                          label={`Revoke key ${key.id}`}
                          title={`Revoke device key ${key.id} (${key.device_type})?`}
                          confirmLabel="Revoke the device key"
                          danger
                          onConfirm={async () => {
                            await answer(
                              api.POST('/tenants/{tenant}/device-keys/{id}/revoke', { params: { path: { tenant, id: key.id } } }),
                            );
                            await refresh();
                          }}
                        >
                          <p>
                            Devices using this key can no longer log in, and the tokens they hold stop working at once. This cannot be
                            undone.
                          </p>
                        </ConfirmButton>
                      )}
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
