import type { ReactNode } from 'react';
import type { Page } from '#web/api/types';
import { ErrorText, Loading } from '#web/components/feedback';
import type { CursorBack } from '#web/paging';

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

/** The buttons of a list paged by keyset cursor (`?after=`, docs/decisions.md §9), and what its page holds. */
export interface CursorControls {
  /** Items on the page shown. */
  shown: number;
  /** Back one page or to the first ({@link CursorBack}); `undefined` on the first page. */
  back: CursorBack | undefined;
  /** Goes to the next page; `undefined` on the last page (the answer's `next` is null). */
  forward: (() => void) | undefined;
  /** A page is being fetched: both buttons wait for it, so a second click does not reuse the old cursor. */
  busy: boolean;
}

/**
 * Previous / next page of a list, with where the list is: "51–100 of 1,234 devices · page 2 of 25".
 * By number (`page`, `onPage`), or by cursor (`cursor`: the list's own buttons; `page` only says
 * where the page is, `undefined` when that is not known, and the total is the answer's).
 */
export function Pager(
  props: { perPage: number; total: number; what: string } & (
    { page: number; onPage: (page: number) => void } | { page: number | undefined; cursor: CursorControls }
  ),
) {
  const { page, perPage, total, what } = props;
  const pages = Math.max(1, Math.ceil(total / perPage));
  let previous: CursorBack | undefined;
  let next: (() => void) | undefined;
  let busy = false;
  /** The number of the page's last item (by cursor: as many after its first as the page holds). */
  let last = 0;
  if ('cursor' in props) {
    ({ back: previous, forward: next, busy } = props.cursor);
    if (page !== undefined) last = (page - 1) * perPage + props.cursor.shown;
  } else {
    const { page: at, onPage } = props;
    if (at > 1) previous = { label: 'Previous page', go: () => onPage(at - 1) };
    if (at < pages) next = () => onPage(at + 1);
    last = Math.min(total, at * perPage);
  }
  if (page === 1 && pages === 1 && !next) {
    return <p className="muted small count-line">{total === 1 ? `1 ${singular(what)}` : `${total.toLocaleString('en')} ${what}`}</p>;
  }
  const shown = 'cursor' in props ? props.cursor.shown : undefined;
  const of = `${total.toLocaleString('en')} ${what}`;
  let where: string;
  if (total === 0) where = `No ${what}`;
  else if (shown === 0) where = `No more ${what} · ${of} in all`;
  else if (page === undefined) where = `${(shown ?? 0).toLocaleString('en')} of ${of}`;
  else {
    where = `${((page - 1) * perPage + 1).toLocaleString('en')}–${last.toLocaleString('en')} of ${of}`;
    if (pages > 1) where += ` · page ${page.toLocaleString('en')} of ${pages.toLocaleString('en')}`;
  }
  return (
    <nav className="pager" aria-label={`Pages of ${what}`} aria-busy={busy}>
      <button type="button" onClick={previous?.go} disabled={!previous || busy}>
        {previous?.label ?? 'Previous page'}
      </button>
      <span>{where}</span>
      <button type="button" onClick={next} disabled={!next || busy}>
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
