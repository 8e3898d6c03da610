import type { Counted, Slice } from '#src/common/paging.js';
import { pageOf, type Page, type PageQuery } from './paging.dto.js';

/** The rows a paged query asks services for. */
export function sliceOf(query: PageQuery): Slice {
  return { offset: query.offset, limit: query.per_page };
}

/** A service's rows as the page answer of `query`, each mapped to its response shape. */
export function pageAnswer<V, R>(counted: Counted<V>, query: PageQuery, map: (view: V) => R): Page<R> {
  return pageOf(counted.items.map(map), counted.total, query);
}
