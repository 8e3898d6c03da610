import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { answer, api } from '#web/api/client';
import { ErrorText, InputError, Loading, Status, ViewerNote } from '#web/components/feedback';
import { refusalAt } from '#web/components/field-error';
import { draftMacs, EMPTY_MACS, MacsInput, type MacsDraft } from '#web/components/macs-input';
import { ForTenant, PageTitle } from '#web/components/page-title';
import { Pager, Table } from '#web/components/table';
import { count, utc } from '#web/format';
import { changeMembers } from '#web/members';
import { useSession } from '#web/session';
import { useCursorPages } from '#web/paging';
import { withTenant } from '#web/tenant';

const MEMBERS_PER_PAGE = 50;

/** One group: its members (paged by cursor, the page in the address), and forms to add or remove members. */
export function GroupPage() {
  const { group = '' } = useParams();
  const { canChange } = useSession();
  const [params] = useSearchParams();
  return (
    <>
      <PageTitle title={`Group ${group}`} />
      {params.get('created') ? <Status>Group {group} created.</Status> : null}
      <ViewerNote />
      <ForTenant>{(tenant) => <Members tenant={tenant} group={group} canChange={canChange} />}</ForTenant>
    </>
  );
}

function Members({ tenant, group, canChange }: { tenant: string; group: string; canChange: boolean }) {
  // Members paged by cursor (docs/decisions.md §9), the position kept in the address.
  const { after, page, back, forwardTo } = useCursorPages();
  const detail = useQuery({
    queryKey: ['groups', tenant, 'detail', group, after],
    queryFn: () =>
      answer(
        api.GET('/tenants/{tenant}/groups/{group}', { params: { path: { tenant, group }, query: { after, per_page: MEMBERS_PER_PAGE } } }),
      ),
    placeholderData: keepPreviousData,
  });
  if (detail.isPending) return <Loading what="the group" />;
  if (detail.error && !detail.data) return <ErrorText error={detail.error} />;
  const d = detail.data;
  return (
    <div className="grid">
      <section className="card" aria-labelledby="members-title">
        <h2 id="members-title">
          {count(d.members)} member{d.members === 1 ? '' : 's'}
        </h2>
        <p className="muted small">Created {utc(d.created_at)}. Members are macs; a device may register after it joins.</p>
        <ErrorText error={detail.error} />
        {d.member_macs.total > 0 ? (
          <>
            <Table caption={`Members of ${d.name}`} hideCaption>
              <thead>
                <tr>
                  <th scope="col">MAC</th>
                  <th scope="col">Registered</th>
                </tr>
              </thead>
              <tbody>
                {d.member_macs.items.map((m) => (
                  <tr key={m.mac}>
                    <td className="mono">
                      {m.registered ? (
                        <Link to={withTenant(CONSOLE_PAGES.device.replace(':mac', encodeURIComponent(m.mac)), tenant)}>{m.mac}</Link>
                      ) : (
                        m.mac
                      )}
                    </td>
                    <td>{m.registered ? 'yes' : 'not yet'}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
            <Pager
              page={page}
              perPage={MEMBERS_PER_PAGE}
              total={d.member_macs.total}
              what="members"
              cursor={{ shown: d.member_macs.items.length, back, forward: forwardTo(d.member_macs.next), busy: detail.isPlaceholderData }}
            />
          </>
        ) : (
          <p className="muted">No member yet.</p>
        )}
      </section>
      {canChange ? (
        <div className="column">
          <ChangeMembers tenant={tenant} group={group} change="add" />
          <ChangeMembers tenant={tenant} group={group} change="remove" />
        </div>
      ) : null}
    </div>
  );
}

function ChangeMembers({ tenant, group, change }: { tenant: string; group: string; change: 'add' | 'remove' }) {
  const client = useQueryClient();
  const [draft, setDraft] = useState<MacsDraft>(EMPTY_MACS);
  const [progress, setProgress] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const verb = change === 'add' ? 'Add' : 'Remove';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setProgress(undefined);
    try {
      const macs = await draftMacs(draft);
      if (macs.length === 0) throw new InputError(`There is no mac to ${change}: paste some or choose a CSV file.`);
      const done = change === 'add' ? 'added' : 'removed';
      await changeMembers(tenant, group, macs, change, (n) => setProgress(`${count(n)} of ${count(macs.length)} macs ${done}…`));
      setProgress(
        `${count(macs.length)} macs ${done}${change === 'add' ? ' (macs already in the group stay)' : ' (macs not in the group are ignored)'}.`,
      );
      setDraft(EMPTY_MACS);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
      await client.invalidateQueries({ queryKey: ['groups', tenant] });
    }
  };

  // A refused mac is shown at the macs; any other refusal under the form.
  const macsProblem = refusalAt(error, 'macs')?.message;
  return (
    <section className="card" aria-labelledby={`${change}-title`}>
      <h2 id={`${change}-title`}>{verb} members</h2>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <MacsInput legend={`Macs to ${change}`} draft={draft} onChange={setDraft} problem={macsProblem} />
        {progress ? <Status>{progress}</Status> : null}
        {macsProblem ? null : <ErrorText error={error} />}
        <div className="actions">
          <button type="submit" disabled={busy} className={change === 'remove' ? 'danger' : undefined}>
            {busy ? 'Working…' : `${verb} members`}
          </button>
        </div>
      </form>
    </section>
  );
}
