import { useLocation, useSearchParams } from 'react-router';

/** What a list paged by keyset cursor offers to go back: to the page before, or (its cursor unknown) to the first page. */
export interface CursorBack {
  label: 'Previous page' | 'First page';
  go: () => void;
}

/** Where a list paged by keyset cursor stands, as {@link useCursorPages} reads it from the address. */
export interface CursorPages {
  /** The `after` to ask the API with: the `next` of the page before; `undefined` on the first page. */
  after: string | undefined;
  /** The page's number, for display only; `undefined` when the address has a cursor but no valid number. */
  page: number | undefined;
  /** Back one page, or to the first page when the page before is not known; `undefined` on the first page. */
  back: CursorBack | undefined;
  /**
   * What "Next page" does with the answer's `next` (the cursor of the page after it): goes to the
   * page that starts after it; `undefined` when `next` is null (the last page).
   */
  forwardTo: (next: string | null) => (() => void) | undefined;
}

/** The query parameters of a cursor position: a list's filters and page size clear them to start over. */
export const CURSOR_PARAMS = ['after', 'page'] as const;

/** History state of a cursor page: the cursors of the pages visited before it, the page just before last. */
interface TrailState {
  cursorTrail: string[];
}

function trailOf(state: unknown, page: number | undefined): string[] {
  const trail = (state as Partial<TrailState> | null)?.cursorTrail;
  if (!Array.isArray(trail) || !trail.every((cursor) => typeof cursor === 'string' && cursor !== '')) return [];
  // Page n has at most n - 2 cursors before it (page 1 has none).
  return page === undefined ? trail : trail.slice(Math.max(0, trail.length - (page - 2)));
}

/**
 * Keyset paging of a console list (the device list, a group's members; docs/decisions.md §9),
 * kept in the address so that a reload or a shared link shows the same page: `?after=<cursor>`,
 * the `next` of the page before, and `&page=<n>`, used only to say where the page is. Each move
 * is a new history entry, so the browser's Back and Forward walk the pages.
 *
 * "Previous page" needs the cursor of the page before, which no answer gives: the cursors of the
 * pages visited on the way are kept in the history entry's state (it survives a reload, not a
 * shared link). Where they are not known (a link opened directly, past page 2) the button says
 * "First page" and goes there.
 */
export function useCursorPages(): CursorPages {
  const [params, setParams] = useSearchParams();
  const state: unknown = useLocation().state;
  const after = params.get('after') || undefined;
  const number = Number(params.get('page'));
  const page = after === undefined ? 1 : Number.isSafeInteger(number) && number >= 2 ? number : undefined;
  const trail = after === undefined ? [] : trailOf(state, page);

  const go = (cursor: string | undefined, to: number | undefined, cursorTrail: string[]) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const name of CURSOR_PARAMS) next.delete(name);
        if (cursor !== undefined) {
          next.set('after', cursor);
          if (to !== undefined) next.set('page', String(to));
        }
        return next;
      },
      { state: { cursorTrail } satisfies TrailState },
    );

  const back: CursorBack | undefined =
    after === undefined
      ? undefined
      : trail.length > 0
        ? { label: 'Previous page', go: () => go(trail.at(-1), page === undefined ? undefined : page - 1, trail.slice(0, -1)) }
        : { label: page === 2 ? 'Previous page' : 'First page', go: () => go(undefined, 1, []) };
  const forwardTo = (next: string | null) =>
    next === null ? undefined : () => go(next, page === undefined ? undefined : page + 1, after === undefined ? [] : [...trail, after]);
  return { after, page, back, forwardTo };
}
