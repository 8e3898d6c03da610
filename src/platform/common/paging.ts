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
