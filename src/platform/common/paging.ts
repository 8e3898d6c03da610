/** Which rows of a list a caller wants: skip `offset`, return at most `limit`. */
export interface Slice {
  offset: number;
  limit: number;
}

/** Some rows of a list and how many the whole list has. */
export interface Counted<T> {
  items: T[];
  total: number;
}

/**
 * Keyset rows of a list ordered by a unique text key (the device list by identifier): at most
 * `limit` rows whose key sorts after `after` (from the first row when absent), then `offset`
 * more skipped; `offset` is 0 when paging by cursor.
 */
export interface KeysetSlice extends Slice {
  after?: string;
}

/** {@link Counted} rows of a keyset list, with the cursor of the page after them: its last row's key, `null` when no row follows. */
export interface CursorCounted<T> extends Counted<T> {
  next: string | null;
}
