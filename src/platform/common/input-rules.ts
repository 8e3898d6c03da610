/**
 * The rules every value that enters the server obeys before it can reach a query, whatever the
 * route or the database engine: text is valid Unicode without NUL (PostgreSQL cannot store a NUL,
 * and neither engine can store a lone UTF-16 surrogate), and an id is within its column's range.
 * The validation pipe applies the text rule to every body, query and path value; the repositories
 * answer an id outside the range as absent, so it is 404 like any other id that names nothing.
 */

/** Largest id of an `integer` column (PostgreSQL's 4-byte integer; SQLite ids never get past it). */
export const MAX_ID = 2_147_483_647;

/**
 * Whether `text` can be stored as it is: well-formed UTF-16 (no lone surrogate, which has no
 * UTF-8 form) and no NUL character.
 */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** A NUL, or a lone surrogate (with the `u` flag, a surrogate pair is one code point, not `Cs`). */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** The 400 text of a value that breaks {@link isStorableText}, naming its field. */
export function unstorableTextMessage(field: string): string {
  return `${field} must be valid Unicode text without NUL characters`;
}

/**
 * The first text inside `value` (a string, or the strings of arrays and plain objects within it)
 * that breaks {@link isStorableText}, as the name of the field holding it: `field` itself for a
 * string or an array of strings, `field.key` inside an object. With `keys`, the keys of objects
 * are checked too, a key being named as `field keys`. `undefined` when all text is storable.
 * Walks without recursion, so no nesting can overflow the stack.
 */
export function unstorableField(value: unknown, field: string, options: { keys?: boolean } = {}): string | undefined {
  const pending: [unknown, string][] = [[value, field]];
  while (pending.length > 0) {
    const [item, name] = pending.pop()!;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return name;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([item[i] as unknown, name]);
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item as Record<string, unknown>);
      if (options.keys && entries.some(([key]) => !isStorableText(key))) return name === '' ? 'body keys' : `${name} keys`;
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        pending.push([child, name === '' ? key : `${name}.${key}`]);
      }
    }
  }
  return undefined;
}

/**
 * Whether `id` can be the id of a stored row: a whole number from 1 to {@link MAX_ID}. A
 * well-formed id beyond it names nothing: lookups answer it as absent instead of sending it to
 * the database, where PostgreSQL would refuse it as out of range.
 */
export function isStoredId(id: number): boolean {
  return Number.isInteger(id) && id >= 1 && id <= MAX_ID;
}
