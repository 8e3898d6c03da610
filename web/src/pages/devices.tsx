import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { answer, api, ApiError, importDevices } from '#web/api/client';
import { useNames } from '#web/api/queries';
import type { CreateDevice, DeviceListQuery, DeviceWithToken } from '#web/api/types';
import { ErrorText, Loading, Status } from '#web/components/feedback';
import { SecretOnce } from '#web/components/secret-once';
import { TARGET_TOKEN_USE } from '#web/pages/device';
import { useSession } from '#web/session';
import { ForTenant, PageTitle } from '#web/components/page-title';
import { InlineSelect, Pager, Table } from '#web/components/table';
import { ago, utc } from '#web/format';
import { CURSOR_PARAMS, useCursorPages } from '#web/paging';
import { withTenant } from '#web/tenant';

/** The last-seen choices and the filter each becomes. */
const SEEN: Record<string, { label: string; filter: (now: number) => Pick<DeviceListQuery, 'seen_since' | 'not_seen_since'> }> = {
  any: { label: 'any time', filter: () => ({}) },
  hour: { label: 'in the last hour', filter: (now) => ({ seen_since: new Date(now - 3_600_000).toISOString() }) },
  day: { label: 'in the last day', filter: (now) => ({ seen_since: new Date(now - 86_400_000).toISOString() }) },
  week: { label: 'in the last 7 days', filter: (now) => ({ seen_since: new Date(now - 7 * 86_400_000).toISOString() }) },
  'silent-day': { label: 'not in the last day', filter: (now) => ({ not_seen_since: new Date(now - 86_400_000).toISOString() }) },
  'silent-week': { label: 'not in the last 7 days', filter: (now) => ({ not_seen_since: new Date(now - 7 * 86_400_000).toISOString() }) },
};

const FILTERS = ['q', 'group', 'firmware_version', 'device_type', 'seen'] as const;
const PER_PAGE = [25, 50, 100, 200];

/** The tenant's devices, filtered and paged on the server. */
export function DevicesPage() {
  return (
    <>
      <PageTitle title="Devices" />
      <ForTenant>{(tenant) => <DeviceList tenant={tenant} key={tenant} />}</ForTenant>
    </>
  );
}

function DeviceList({ tenant }: { tenant: string }) {
  const [params, setParams] = useSearchParams();
  const { after, page, back, forwardTo } = useCursorPages();
  const perPage = PER_PAGE.includes(Number(params.get('per_page'))) ? Number(params.get('per_page')) : 50;
  const filters = Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  // The last-seen choice is turned into a time when the filter is applied, so paging keeps one time.
  const [openedAt] = useState(() => Date.now());
  const seenAt = Number(params.get('at')) || openedAt;
  const names = useNames(tenant);
  const summary = useQuery({
    queryKey: ['fleet', tenant],
    queryFn: () => answer(api.GET('/tenants/{tenant}/fleet', { params: { path: { tenant } } })),
  });

  // Paged by cursor (docs/decisions.md §9): a page deep in a million devices costs what the first does.
  const query: DeviceListQuery = {
    after,
    per_page: perPage,
    q: filters.q || undefined,
    group: filters.group || undefined,
    firmware_version: filters.firmware_version || undefined,
    device_type: filters.device_type || undefined,
    ...(SEEN[filters.seen] ?? SEEN.any).filter(seenAt),
  };
  const devices = useQuery({
    queryKey: ['devices', tenant, query],
    queryFn: () => answer(api.GET('/tenants/{tenant}/devices', { params: { path: { tenant }, query } })),
    placeholderData: keepPreviousData,
  });

  /** Changes the filters or the page size, and starts over at the first page. */
  const update = (change: Record<string, string | undefined>) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [key, value] of Object.entries(change)) {
        if (value === undefined || value === '') next.delete(key);
        else next.set(key, value);
      }
      for (const name of CURSOR_PARAMS) next.delete(name);
      return next;
    });

  const versions = [...new Set((summary.data?.versions ?? []).map((v) => v.firmware_version))];
  const types = [...new Set((summary.data?.versions ?? []).map((v) => v.device_type))];

  return (
    <>
      <CreateDevice tenant={tenant} types={types} />
      <ImportDevices tenant={tenant} />
      <Filters
        initial={filters}
        groups={names.groups.map((g) => g.name)}
        versions={versions}
        types={types}
        onApply={(chosen) => update({ ...chosen, at: chosen.seen && chosen.seen !== 'any' ? String(Date.now()) : undefined })}
        onClear={() => update({ ...Object.fromEntries(FILTERS.map((f) => [f, undefined])), at: undefined })}
      />
      <ErrorText error={devices.error} />
      {devices.isPending ? <Loading what="devices" /> : null}
      {devices.data ? (
        <>
          <Table caption={`Devices of ${tenant}, by identifier`} hideCaption>
            <thead>
              <tr>
                <th scope="col">MAC or controller id</th>
                <th scope="col">Protocol</th>
                <th scope="col">Name</th>
                <th scope="col">Firmware version</th>
                <th scope="col">Device type</th>
                <th scope="col">Last seen</th>
                <th scope="col">Registered</th>
              </tr>
            </thead>
            <tbody>
              {devices.data.items.map((device) => (
                <tr key={device.mac}>
                  <td className="mono">
                    <Link to={withTenant(CONSOLE_PAGES.device.replace(':mac', encodeURIComponent(device.mac)), tenant)}>{device.mac}</Link>
                  </td>
                  <td>{device.protocol === 'ddi' ? 'hawkBit DDI' : 'asvin'}</td>
                  <td>{device.name}</td>
                  <td>{device.firmware_version}</td>
                  <td>{device.device_type}</td>
                  <td title={utc(device.last_seen_at)}>{ago(device.last_seen_at)}</td>
                  <td>{utc(device.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
          {devices.data.total === 0 ? <p className="muted">No device matches these filters.</p> : null}
          <div className="pager-row">
            <Pager
              page={page}
              perPage={perPage}
              total={devices.data.total}
              what="devices"
              cursor={{
                shown: devices.data.items.length,
                back,
                forward: forwardTo(devices.data.next),
                busy: devices.isPlaceholderData,
              }}
            />
            <InlineSelect
              id="per-page"
              label="Per page"
              value={perPage}
              options={PER_PAGE.map((n) => [n, String(n)] as const)}
              onChange={(value) => update({ per_page: String(value) })}
            />
          </div>
        </>
      ) : null}
    </>
  );
}

/**
 * Creates a hawkBit DDI device (admins only): its controller id and device type; its target token
 * is shown once. Devices of the asvin interface register themselves.
 */
function CreateDevice({ tenant, types }: { tenant: string; types: string[] }) {
  const { canChange } = useSession();
  const client = useQueryClient();
  const [draft, setDraft] = useState<CreateDevice>({ controller_id: '', device_type: '' });
  const [created, setCreated] = useState<DeviceWithToken>();
  const [error, setError] = useState<unknown>();
  if (!canChange) return null;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const device: DeviceWithToken = await answer(api.POST('/tenants/{tenant}/devices', { params: { path: { tenant } }, body: draft }));
      setCreated(device);
      setDraft({ controller_id: '', device_type: draft.device_type });
      await client.invalidateQueries({ queryKey: ['devices', tenant] });
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <details className="card">
      <summary>Add a hawkBit device (SWUpdate, rauc-hawkbit-updater, Zephyr…)</summary>
      {created ? (
        <SecretOnce
          title={`Target token of ${created.mac}`}
          secret={created.target_token}
          use={TARGET_TOKEN_USE}
          onDone={() => setCreated(undefined)}
        />
      ) : null}
      <form className="filters" aria-label="Add a hawkBit device" onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor="device-controller-id">Controller id of the new device</label>
          <input
            id="device-controller-id"
            required
            value={draft.controller_id}
            onChange={(event) => setDraft({ ...draft, controller_id: event.target.value })}
          />
        </div>
        <SuggestField
          id="device-type"
          label="Device type of the new device"
          value={draft.device_type}
          suggestions={types}
          onChange={(event) => setDraft({ ...draft, device_type: event.target.value })}
        />
        <div className="actions">
          <button type="submit">Add device</button>
        </div>
      </form>
      <ErrorText error={error} />
    </details>
  );
}

/**
 * Imports devices in bulk from a CSV or NDJSON file (admins only; docs/operator-guide.md
 * "Importing devices"): the file is sent as it is, with a progress bar; the answer says how many
 * were created and skipped, a refusal lists the bad rows by line (nothing was written).
 */
function ImportDevices({ tenant }: { tenant: string }) {
  const { canChange } = useSession();
  const client = useQueryClient();
  const [file, setFile] = useState<File>();
  const [sent, setSent] = useState<{ sent: number; total: number }>();
  const [result, setResult] = useState<{ created: number; skipped: number; rows: number }>();
  const [error, setError] = useState<unknown>();
  if (!canChange) return null;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!file) return;
    const form = event.currentTarget;
    setError(undefined);
    setResult(undefined);
    setSent({ sent: 0, total: file.size });
    try {
      setResult(await importDevices(tenant, file, (done, total) => setSent({ sent: done, total })));
      setFile(undefined);
      form.reset();
      await client.invalidateQueries({ queryKey: ['devices', tenant] });
      await client.invalidateQueries({ queryKey: ['fleet', tenant] });
    } catch (failure) {
      setError(failure);
    } finally {
      setSent(undefined);
    }
  };
  const rows = error instanceof ApiError ? error.rows : [];
  return (
    <details className="card">
      <summary>Import devices from a CSV or NDJSON file</summary>
      <p className="muted small">
        A CSV file with a header line (<code>mac</code> or <code>controller_id</code>, <code>device_type</code>, and optionally{' '}
        <code>firmware_version</code>, <code>name</code>, <code>group</code>, <code>attributes</code>, <code>protocol</code>,{' '}
        <code>target_token</code>), or one JSON object a line (<code>.ndjson</code>, <code>.jsonl</code>). With any bad row nothing is
        imported; devices the tenant has are skipped.
      </p>
      <form className="filters" aria-label="Import devices" onSubmit={(event) => void submit(event)}>
        <div className="field">
          <label htmlFor="device-import-file">Device file (.csv, .ndjson, .jsonl)</label>
          <input
            id="device-import-file"
            type="file"
            required
            accept=".csv,.ndjson,.jsonl,text/csv,application/x-ndjson"
            onChange={(event) => setFile(event.target.files?.[0])}
          />
        </div>
        <div className="actions">
          <button type="submit" disabled={sent !== undefined}>
            {sent ? 'Importing…' : 'Import devices'}
          </button>
        </div>
      </form>
      {sent ? (
        <div className="field">
          <label htmlFor="device-import-progress">Sending {file?.name}</label>
          <progress id="device-import-progress" max={Math.max(sent.total, 1)} value={sent.sent} />
        </div>
      ) : null}
      {result ? (
        <Status>
          Imported {result.created.toLocaleString('en')} device{result.created === 1 ? '' : 's'} of {result.rows.toLocaleString('en')} rows;
          skipped {result.skipped.toLocaleString('en')} the tenant has.
        </Status>
      ) : null}
      <ErrorText error={error} />
      {rows.length > 1 ? (
        <ul className="error" aria-label="Bad rows">
          {rows.map((row) => (
            <li key={row.line}>{row.message}</li>
          ))}
        </ul>
      ) : null}
    </details>
  );
}

function Filters({
  initial,
  groups,
  versions,
  types,
  onApply,
  onClear,
}: {
  initial: Record<string, string>;
  groups: string[];
  versions: string[];
  types: string[];
  onApply: (filters: Record<string, string>) => void;
  onClear: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const set = (name: string) => (event: { target: { value: string } }) => setDraft({ ...draft, [name]: event.target.value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form className="filters" role="search" aria-label="Filter devices" onSubmit={submit}>
      <div className="field">
        <label htmlFor="filter-q">Search mac, controller id or name</label>
        <input id="filter-q" type="search" value={draft.q} onChange={set('q')} placeholder="e.g. 01:02 or pump" />
      </div>
      <div className="field">
        <label htmlFor="filter-group">Group</label>
        <select id="filter-group" value={draft.group} onChange={set('group')}>
          <option value="">any group</option>
          {groups.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <SuggestField
        id="filter-version"
        label="Firmware version"
        value={draft.firmware_version}
        suggestions={versions}
        onChange={set('firmware_version')}
      />
      <SuggestField id="filter-type" label="Device type" value={draft.device_type} suggestions={types} onChange={set('device_type')} />
      <div className="field">
        <label htmlFor="filter-seen">Last seen</label>
        <select id="filter-seen" value={draft.seen || 'any'} onChange={set('seen')}>
          {Object.entries(SEEN).map(([value, { label }]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div className="actions">
        <button type="submit">Apply filters</button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setDraft(Object.fromEntries(FILTERS.map((f) => [f, ''])));
            onClear();
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}

/** A text field that suggests `suggestions` (the values the fleet holds) while leaving any other text possible. */
function SuggestField({
  id,
  label,
  value,
  suggestions,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  suggestions: string[];
  onChange: (event: { target: { value: string } }) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} list={`${id}-suggestions`} value={value} onChange={onChange} />
      <datalist id={`${id}-suggestions`}>
        {suggestions.map((suggestion) => (
          <option key={suggestion} value={suggestion} />
        ))}
      </datalist>
    </div>
  );
}
