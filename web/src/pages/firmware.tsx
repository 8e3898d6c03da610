import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { answer, api, uploadFirmware } from '#web/api/client';
import type { Firmware } from '#web/api/types';
import { ErrorText, Status, ViewerNote } from '#web/components/feedback';
import { describedBy, FieldError, refusalAt } from '#web/components/field-error';
import { ForTenant, PageTitle } from '#web/components/page-title';
import { PagedList } from '#web/components/table';
import { bytes, utc } from '#web/format';
import { useSession } from '#web/session';

/** Firmware of the tenant: upload (with progress) and the list with digests and CID. */
export function FirmwarePage() {
  const { canChange } = useSession();
  return (
    <>
      <PageTitle title="Firmware" />
      <ViewerNote />
      <ForTenant>
        {(tenant) => (
          <>
            {canChange ? <Upload tenant={tenant} key={tenant} /> : null}
            <FirmwareList tenant={tenant} />
          </>
        )}
      </ForTenant>
    </>
  );
}

function Upload({ tenant }: { tenant: string }) {
  const client = useQueryClient();
  const fileInput = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File>();
  const [version, setVersion] = useState('');
  const [deviceType, setDeviceType] = useState('ESP32');
  const [sent, setSent] = useState<{ sent: number; total: number }>();
  const [error, setError] = useState<unknown>();
  const [published, setPublished] = useState<Firmware>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setError(undefined);
    setPublished(undefined);
    setSent({ sent: 0, total: file.size });
    try {
      const firmware = await uploadFirmware(tenant, { version, device_type: deviceType, filename: file.name }, file, (done, total) =>
        setSent({ sent: done, total }),
      );
      setPublished(firmware);
      setVersion('');
      setFile(undefined);
      if (fileInput.current) fileInput.current.value = '';
      await client.invalidateQueries({ queryKey: ['firmware', tenant] });
    } catch (failure) {
      setError(failure);
    } finally {
      setSent(undefined);
    }
  };

  // A refusal of `version` or `device_type` is shown at that field; any other under the form.
  const versionProblem = refusalAt(error, 'version')?.message;
  const typeProblem = refusalAt(error, 'device_type')?.message;
  return (
    <section className="card" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload firmware</h2>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor="firmware-file">Firmware binary</label>
          <input id="firmware-file" ref={fileInput} type="file" required onChange={(e) => setFile(e.target.files?.[0])} />
        </div>
        <div className="row">
          <div className="field">
            <label htmlFor="firmware-version">Version</label>
            <input
              id="firmware-version"
              required
              maxLength={64}
              placeholder="e.g. 1.2.0"
              value={version}
              onChange={(e) => setVersion(e.target.value)}
              {...describedBy('firmware-version-error', versionProblem)}
            />
            <FieldError id="firmware-version-error" message={versionProblem} />
          </div>
          <div className="field">
            <label htmlFor="firmware-type">Device type</label>
            <input
              id="firmware-type"
              required
              maxLength={64}
              value={deviceType}
              onChange={(e) => setDeviceType(e.target.value)}
              {...describedBy('firmware-type-error', typeProblem)}
            />
            <FieldError id="firmware-type-error" message={typeProblem} />
          </div>
        </div>
        {sent ? (
          <div className="field">
            <label htmlFor="upload-progress">Uploading {file?.name}</label>
            <progress id="upload-progress" max={Math.max(sent.total, 1)} value={sent.sent} />
            <span className="muted small" aria-live="polite">
              {bytes(sent.sent)} of {bytes(sent.total)}
              {sent.sent >= sent.total ? ' sent; computing digests and CID…' : ''}
            </span>
          </div>
        ) : null}
        {versionProblem || typeProblem ? null : <ErrorText error={error} />}
        {published ? (
          <Status>
            Published {published.version} for {published.device_type}: {bytes(published.size)}, CID <code>{published.cid}</code>.
          </Status>
        ) : null}
        <div className="actions">
          <button type="submit" disabled={sent !== undefined}>
            {sent ? 'Uploading…' : 'Upload and publish'}
          </button>
        </div>
      </form>
    </section>
  );
}

function FirmwareList({ tenant }: { tenant: string }) {
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['firmware', tenant, page],
    queryFn: () => answer(api.GET('/tenants/{tenant}/firmware', { params: { path: { tenant }, query: { page, per_page: 20 } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="card" aria-labelledby="firmware-title">
      <h2 id="firmware-title">Published firmware</h2>
      <PagedList list={list} what="firmware" empty="No firmware published yet." page={page} perPage={20} onPage={setPage}>
        {(items) => (
          <ul className="firmware-list">
            {items.map((f) => (
              <li key={f.id}>
                <h3>
                  {f.version} <span className="muted">for {f.device_type}</span>
                </h3>
                <p className="muted small">
                  Firmware {f.id} · {bytes(f.size)} ({f.size.toLocaleString('en')} bytes) · published {utc(f.created_at)}
                </p>
                <dl className="digests">
                  <dt>MD5</dt>
                  <dd className="mono">{f.md5}</dd>
                  <dt>SHA-256</dt>
                  <dd className="mono">{f.sha256}</dd>
                  <dt>CID</dt>
                  <dd className="mono">{f.cid}</dd>
                </dl>
              </li>
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}
