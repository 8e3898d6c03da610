import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { answer, api } from '#web/api/client';
import { PageTitle } from '#web/components/page-title';
import { InlineSelect, PagedList, Table } from '#web/components/table';
import { shortHash } from '#web/format';
import { useTenant } from '#web/tenant';
import { VerifyResult } from './overview';

/** The hash-chained ledger: verify it, and read its entries, newest first, of all tenants or the chosen one. */
export function LedgerPage() {
  const { tenant, tenants } = useTenant();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const scope = params.get('scope') === 'all' ? 'all' : 'tenant';
  const order = params.get('order') === 'asc' ? 'asc' : 'desc';
  const onlyTenant = scope === 'tenant' ? tenant : undefined;
  const verify = useMutation({ mutationFn: () => answer(api.GET('/ledger/verify')) });
  const entries = useQuery({
    queryKey: ['ledger', 'entries', onlyTenant, order, page],
    queryFn: () => answer(api.GET('/ledger/entries', { params: { query: { tenant: onlyTenant, order, page, per_page: 50 } } })),
    placeholderData: keepPreviousData,
  });
  const tenantName = (id: number) => tenants.find((t) => t.id === id)?.name ?? `tenant ${id}`;
  const update = (key: string, value: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.set(key, value);
      if (key !== 'page') next.delete('page');
      return next;
    });

  return (
    <>
      <PageTitle title="Ledger" />
      <section className="card" aria-labelledby="verify-title">
        <h2 id="verify-title">Verify</h2>
        <p className="muted">
          Recomputes the hash of every entry from the first and checks each names the one before it. Entries record who made each change.
        </p>
        <VerifyResult result={verify.data} error={verify.error} />
        <button type="button" onClick={() => verify.mutate()} disabled={verify.isPending}>
          {verify.isPending ? 'Verifying…' : 'Verify the ledger'}
        </button>
      </section>
      <section className="card" aria-labelledby="entries-title">
        <div className="section-head">
          <h2 id="entries-title">Entries</h2>
          <div className="row">
            <InlineSelect
              id="ledger-scope"
              label="Entries of"
              value={scope}
              options={[
                ['tenant', tenant ?? 'the chosen tenant'],
                ['all', 'all tenants'],
              ]}
              onChange={(value) => update('scope', value)}
            />
            <InlineSelect
              id="ledger-order"
              label="Order"
              value={order}
              options={[
                ['desc', 'newest first'],
                ['asc', 'oldest first'],
              ]}
              onChange={(value) => update('order', value)}
            />
          </div>
        </div>
        <PagedList
          list={entries}
          what="entries"
          loading="ledger entries"
          empty="No entries."
          page={page}
          perPage={50}
          onPage={(p) => update('page', String(p))}
        >
          {(items) => (
            <>
              <Table caption="Ledger entries" hideCaption>
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Time (UTC)</th>
                    {onlyTenant ? null : <th scope="col">Tenant</th>}
                    <th scope="col">Change</th>
                    <th scope="col">Subject</th>
                    <th scope="col">By</th>
                    <th scope="col">Recorded state</th>
                    <th scope="col">Hash</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((e) => (
                    <tr key={e.seq}>
                      <td>{e.seq}</td>
                      <td>{e.created_at.slice(0, 19).replace('T', ' ')}</td>
                      {onlyTenant ? null : <td>{tenantName(e.tenant_id)}</td>}
                      <td>{e.type}</td>
                      <td className="mono">{e.subject}</td>
                      <td>
                        {e.actor ?? <abbr title="no operator: a device's own change, or an entry from before actors were recorded">—</abbr>}
                      </td>
                      <td className="wrap">
                        <Payload value={e.payload} />
                      </td>
                      <td className="mono" title={e.hash}>
                        {shortHash(e.hash, 6)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
              <p className="muted small">
                By: who made the change (user: a console account, token: an operator token, cli: the CLI on the server); — when no operator
                did.
              </p>
            </>
          )}
        </PagedList>
      </section>
    </>
  );
}

/** A recorded state as `key value` pairs (lists by their length), the whole JSON folded under it when there is more. */
function Payload({ value }: { value: unknown }) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return <code className="payload">{JSON.stringify(value)}</code>;
  const pairs = Object.entries(value as Record<string, unknown>);
  const shown = pairs.map(([key, v]) => (
    <span key={key} className="pair">
      <span className="muted">{key}</span> {Array.isArray(v) ? `${v.length} item${v.length === 1 ? '' : 's'}` : String(v)}
    </span>
  ));
  if (!pairs.some(([, v]) => Array.isArray(v) || (typeof v === 'object' && v !== null))) return <span className="payload">{shown}</span>;
  return (
    <details>
      <summary className="payload">{shown}</summary>
      <pre className="payload">{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}
