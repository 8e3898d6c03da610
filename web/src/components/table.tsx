import type { ReactNode } from 'react';
import type { Page } from '#web/api/types';
import { ErrorText, Loading } from '#web/components/feedback';

/**
 * A table that scrolls sideways on its own when the screen is narrow (keyboard too: it takes
 * focus), with a caption screen readers announce.
 */
export function Table({ caption, children, hideCaption = false }: { caption: string; children: ReactNode; hideCaption?: boolean }) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={caption}>
      <table>
        <caption className={hideCaption ? 'visually-hidden' : undefined}>{caption}</caption>
        {children}
      </table>
    </div>
  );
}

/** Previous / next page of a list, with where the list is. */
export function Pager({
  page,
  perPage,
  total,
  what,
  onPage,
}: {
  page: number;
  perPage: number;
  total: number;
  what: string;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const first = total === 0 ? 0 : (page - 1) * perPage + 1;
  const last = Math.min(total, page * perPage);
  if (pages === 1 && page === 1) {
    return <p className="muted small count-line">{total === 1 ? `1 ${singular(what)}` : `${total.toLocaleString('en')} ${what}`}</p>;
  }
  return (
    <nav className="pager" aria-label={`Pages of ${what}`}>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous page
      </button>
      <span>
        {total === 0 ? `No ${what}` : `${first.toLocaleString('en')}–${last.toLocaleString('en')} of ${total.toLocaleString('en')} ${what}`}
        {pages > 1 ? ` · page ${page.toLocaleString('en')} of ${pages.toLocaleString('en')}` : ''}
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= pages}>
        Next page
      </button>
    </nav>
  );
}

/**
 * One page of a list the server pages: its refusal, a loading line until the first answer,
 * `empty` when the list holds nothing, else `children(items)` (its table) and the {@link Pager}.
 * `what` names the items in the pager, `loading` in the loading line (`what` unless told).
 */
export function PagedList<T>({
  list,
  what,
  loading = what,
  empty,
  page,
  perPage,
  onPage,
  children,
}: {
  list: { data?: Page<T>; error: unknown; isPending: boolean };
  what: string;
  loading?: string;
  empty: ReactNode;
  page: number;
  perPage: number;
  onPage: (page: number) => void;
  children: (items: T[]) => ReactNode;
}) {
  return (
    <>
      <ErrorText error={list.error} />
      {list.isPending ? <Loading what={loading} /> : null}
      {list.data?.total === 0 ? <p className="muted">{empty}</p> : null}
      {list.data && list.data.total > 0 ? (
        <>
          {children(list.data.items)}
          <Pager page={page} perPage={perPage} total={list.data.total} what={what} onPage={onPage} />
        </>
      ) : null}
    </>
  );
}

/**
 * A labelled select on one line, as lists show their filters and page sizes: `options` are
 * `[value, words]` pairs, and `onChange` gets the chosen option's value as given (a number stays a number).
 */
export function InlineSelect<V extends string | number>({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string;
  label: string;
  value: V;
  options: readonly (readonly [V, string])[];
  onChange: (value: V) => void;
}) {
  const choose = (text: string) => {
    const chosen = options.find(([option]) => String(option) === text);
    if (chosen) onChange(chosen[0]);
  };
  return (
    <div className="inline-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => choose(e.target.value)}>
        {options.map(([option, words]) => (
          <option key={option} value={option}>
            {words}
          </option>
        ))}
      </select>
    </div>
  );
}

/** `devices` → `device`, `entries` → `entry`; words without a plural `s` stay as they are. */
function singular(what: string): string {
  if (what.endsWith('ies')) return `${what.slice(0, -3)}y`;
  return what.endsWith('s') ? what.slice(0, -1) : what;
}
