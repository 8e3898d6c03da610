import type { ValueTransformer } from 'typeorm';

/**
 * Times are stored as epoch milliseconds in `bigint` columns on every engine; PostgreSQL's
 * driver returns `bigint` as text, so this turns it back into a number.
 */
export const epochMs: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};
