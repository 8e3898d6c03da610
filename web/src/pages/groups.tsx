import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { CONSOLE_PAGES } from '#src/operator/console/console-pages';
import { answer, api } from '#web/api/client';
import { ErrorText, InputError, Status, ViewerNote } from '#web/components/feedback';
import { describedBy, FieldError, refusalAt } from '#web/components/field-error';
import { draftMacs, EMPTY_MACS, MacsInput, type MacsDraft } from '#web/components/macs-input';
import { ForTenant, PageTitle } from '#web/components/page-title';
import { PagedList, Table } from '#web/components/table';
import { count, utc } from '#web/format';
import { changeMembers } from '#web/members';
import { useSession } from '#web/session';
import { withTenant } from '#web/tenant';

/** Device groups of the tenant: create one (with members from pasted macs or a CSV file), list them. */
export function GroupsPage() {
  const { canChange } = useSession();
  return (
    <>
      <PageTitle title="Groups" />
      <ViewerNote />
      <ForTenant>
        {(tenant) => (
          <>
            {canChange ? <CreateGroup tenant={tenant} key={tenant} /> : null}
            <GroupList tenant={tenant} />
          </>
        )}
      </ForTenant>
    </>
  );
}

function CreateGroup({ tenant }: { tenant: string }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [filter, setFilter] = useState('');
  const [draft, setDraft] = useState<MacsDraft>(EMPTY_MACS);
  const [progress, setProgress] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const macs = await draftMacs(draft);
      if (filter.trim() !== '' && macs.length > 0) {
        throw new InputError("A dynamic group's members are the devices that match its filter: give a filter or macs, not both.");
      }
      setProgress(macs.length > 0 ? `Creating ${name} with ${count(macs.length)} macs…` : `Creating ${name}…`);
      const body = filter.trim() === '' ? { name } : { name, filter };
      const group = await answer(api.POST('/tenants/{tenant}/groups', { params: { path: { tenant } }, body }));
      await changeMembers(tenant, String(group.id), macs, 'add', (done) =>
        setProgress(`Added ${count(done)} of ${count(macs.length)} macs…`),
      );
      await client.invalidateQueries({ queryKey: ['groups', tenant] });
      void navigate(withTenant(CONSOLE_PAGES.group.replace(':group', encodeURIComponent(group.name)), tenant, { created: '1' }));
    } catch (failure) {
      setError(failure);
      setProgress(undefined);
      await client.invalidateQueries({ queryKey: ['groups', tenant] });
    } finally {
      setBusy(false);
    }
  };

  // A refusal of the name or of a mac is shown at that field; any other under the form.
  const nameProblem = refusalAt(error, 'name')?.message;
  const macsProblem = refusalAt(error, 'macs')?.message;
  const filterProblem = refusalAt(error, 'filter')?.message;
  return (
    <section className="card" aria-labelledby="create-group-title">
      <h2 id="create-group-title">Create a group</h2>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label htmlFor="group-name">Group name</label>
          <input
            id="group-name"
            required
            maxLength={128}
            value={name}
            onChange={(e) => setName(e.target.value)}
            {...describedBy('group-name-error', nameProblem)}
          />
          <FieldError id="group-name-error" message={nameProblem} />
        </div>
        <div className="field">
          <label htmlFor="group-filter">Filter (optional: a dynamic group of the devices that match it, now and later)</label>
          <input
            id="group-filter"
            className="mono"
            maxLength={1024}
            placeholder="device_type = ESP32 and attribute.hw_rev = 3 and not label.site = lab"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            {...describedBy('group-filter-error', filterProblem)}
          />
          <FieldError id="group-filter-error" message={filterProblem} />
        </div>
        <MacsInput legend="Members (optional; devices may register later)" draft={draft} onChange={setDraft} problem={macsProblem} />
        {progress ? <Status>{progress}</Status> : null}
        {nameProblem || macsProblem || filterProblem ? null : <ErrorText error={error} />}
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create group'}
          </button>
        </div>
      </form>
    </section>
  );
}

function GroupList({ tenant }: { tenant: string }) {
  const [page, setPage] = useState(1);
  const groups = useQuery({
    queryKey: ['groups', tenant, page],
    queryFn: () => answer(api.GET('/tenants/{tenant}/groups', { params: { path: { tenant }, query: { page, per_page: 50 } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="card" aria-labelledby="groups-title">
      <h2 id="groups-title">Groups of {tenant}</h2>
      <PagedList list={groups} what="groups" empty="No group yet." page={page} perPage={50} onPage={setPage}>
        {(items) => (
          <Table caption={`Groups of ${tenant}`} hideCaption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Members</th>
                <th scope="col">Filter</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {items.map((g) => (
                <tr key={g.id}>
                  <td>
                    <Link to={withTenant(CONSOLE_PAGES.group.replace(':group', encodeURIComponent(g.name)), tenant)}>{g.name}</Link>
                  </td>
                  <td>{count(g.members)}</td>
                  <td className="mono">{g.filter ?? <span className="muted">static</span>}</td>
                  <td>{utc(g.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </PagedList>
    </section>
  );
}
