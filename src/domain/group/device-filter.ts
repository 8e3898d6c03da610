import peggy from 'peggy';

/**
 * The filter of a dynamic group (docs/decisions.md §10.3): a small query over a device, parsed by a
 * peggy grammar, compiled once to a predicate (for rules and specs) and once to one SQL condition
 * with bound parameters (both engines). A spec runs both over one table of cases.
 *
 * Fields: `device_type`, `firmware_version`, `name`, `label.<key>`, `attribute.<key>`; operators
 * `=`, `!=`, `~` (a glob: `*` matches any characters; a pattern without `*` is a prefix); a bare
 * `label.<key>` or `attribute.<key>` is true when the device has it. `and` binds tighter than `or`;
 * `not` and parentheses. Values are words of `[A-Za-z0-9._:/*+@-]` or double-quoted strings
 * (`\"` and `\\` escaped). A label or attribute a device does not have is `!=` every value.
 *
 * Example: `device_type = ESP32 and attribute.hw_rev = 3 and not label.site = lab`.
 */

/** A field of a comparison. */
export type FilterField =
  { kind: 'column'; name: 'device_type' | 'firmware_version' | 'name' } | { kind: 'label' | 'attribute'; key: string };

/** The parsed filter. */
export type FilterNode =
  | { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { kind: 'not'; expr: FilterNode }
  | { kind: 'cmp'; field: FilterField; op: '=' | '!=' | '~'; value: string }
  | { kind: 'has'; field: { kind: 'label' | 'attribute'; key: string } };

/** Most characters a filter may have. */
export const MAX_FILTER_LENGTH = 1024;

const GRAMMAR = String.raw`
Filter = _ e:Or _ { return e; }
Or = head:And tail:(_ "or" !W _ @And)* { return tail.reduce((left, right) => ({ kind: 'or', left, right }), head); }
And = head:Not tail:(_ "and" !W _ @Not)* { return tail.reduce((left, right) => ({ kind: 'and', left, right }), head); }
Not = "not" !W _ e:Not { return { kind: 'not', expr: e }; } / Primary
Primary = "(" _ e:Or _ ")" { return e; } / Comparison
Comparison = f:Field _ op:Op _ v:Value { return { kind: 'cmp', field: f, op, value: v }; }
  / f:Keyed { return { kind: 'has', field: f }; }
Op = "!=" / "=" / "~"
Field = Keyed / n:("device_type" / "firmware_version" / "name") !W { return { kind: 'column', name: n }; }
Keyed = kind:("label" / "attribute") "." key:Key { return { kind, key }; }
Key = Quoted / $[A-Za-z0-9_.:/-]+
Value = Quoted / $[A-Za-z0-9._:/*+@-]+
Quoted = '"' chars:(@[^"\\] / "\\" @["\\])* '"' { return chars.join(''); }
W = [A-Za-z0-9_.]
_ = [ \t\r\n]*
`;

const parser = peggy.generate(GRAMMAR);

/** A filter that does not parse: the message and the 1-based column where it went wrong. */
export class FilterSyntaxError extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(`${message} (at column ${column})`);
  }
}

/**
 * Parses a filter.
 * @throws FilterSyntaxError naming the column where it went wrong (or its length: empty or too long).
 */
export function parseFilter(text: string): FilterNode {
  if (text.trim().length === 0) throw new FilterSyntaxError('the filter is empty', 1);
  if (text.length > MAX_FILTER_LENGTH)
    throw new FilterSyntaxError(`the filter has more than ${MAX_FILTER_LENGTH} characters`, MAX_FILTER_LENGTH + 1);
  try {
    return parser.parse(text) as FilterNode;
  } catch (error) {
    const e = error as { message?: string; location?: { start: { column: number } } };
    if (!e.location) throw error;
    throw new FilterSyntaxError(e.message ?? 'syntax error', e.location.start.column);
  }
}

/** What a filter reads of a device. */
export interface FilterDevice {
  deviceType: string;
  firmwareVersion: string;
  name: string;
  /** Labels by key (a plain-word label has the value `''`). */
  labels: Readonly<Record<string, string>>;
  /** Reported attributes, `null` before it reported any. */
  attributes: Readonly<Record<string, string>> | null;
}

/** A `~` pattern as its glob: `*` matches any characters; a pattern without `*` is a prefix. */
const globOf = (pattern: string): string => (pattern.includes('*') ? pattern : `${pattern}*`);

function globMatches(pattern: string, value: string): boolean {
  const parts = globOf(pattern).split('*');
  const regex = new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`, 'u');
  return regex.test(value);
}

/** Whether `device` matches the filter `node`. */
export function matchesFilter(node: FilterNode, device: FilterDevice): boolean {
  switch (node.kind) {
    case 'and':
      return matchesFilter(node.left, device) && matchesFilter(node.right, device);
    case 'or':
      return matchesFilter(node.left, device) || matchesFilter(node.right, device);
    case 'not':
      return !matchesFilter(node.expr, device);
    case 'has':
      return fieldValue(node.field, device) !== undefined;
    case 'cmp': {
      const value = fieldValue(node.field, device);
      const equal = value === node.value;
      if (node.op === '=') return equal;
      if (node.op === '!=') return !equal;
      return value !== undefined && globMatches(node.value, value);
    }
  }
}

function fieldValue(field: FilterField, device: FilterDevice): string | undefined {
  if (field.kind !== 'column') {
    const values = field.kind === 'label' ? device.labels : device.attributes;
    return values && Object.hasOwn(values, field.key) ? values[field.key] : undefined;
  }
  return { device_type: device.deviceType, firmware_version: device.firmwareVersion, name: device.name }[field.name];
}

/** The SQL engine a condition is written for. */
export type SqlDialect = 'sqlite' | 'postgres';

/** An SQL condition with its named parameters (TypeORM's `:name` form). */
export interface SqlCondition {
  sql: string;
  params: Record<string, string>;
}

/**
 * The filter as one SQL condition over a `device` row aliased `device` (both engines, never NULL):
 * true when the device matches. Values and keys are bound parameters named `<prefix>0`, `<prefix>1`, …;
 * its subqueries use the aliases `fl` (device_label) and `fa` (the attributes' entries).
 */
export function filterCondition(node: FilterNode, device: string, dialect: SqlDialect, prefix = 'flt'): SqlCondition {
  const params: Record<string, string> = {};
  const bind = (value: string): string => {
    const name = `${prefix}${Object.keys(params).length}`;
    params[name] = value;
    return `:${name}`;
  };
  const glob = (column: string, pattern: string): string => {
    const g = globOf(pattern);
    if (dialect === 'sqlite') return `${column} GLOB ${bind(g.replace(/[[?]/g, '[$&]'))}`;
    return `${column} LIKE ${bind(g.replace(/[\\%_]/g, '\\$&').replace(/\*/g, '%'))} ESCAPE '\\'`;
  };
  const test = (column: string, op: '=' | '~' | 'has', value: string): string =>
    op === 'has' ? '1 = 1' : op === '=' ? `${column} = ${bind(value)}` : glob(column, value);
  const keyed = (field: { kind: 'label' | 'attribute'; key: string }, op: '=' | '~' | 'has', value: string): string => {
    if (field.kind === 'label') {
      return `EXISTS (SELECT 1 FROM device_label fl WHERE fl.device_id = ${device}.id AND fl.key = ${bind(field.key)} AND ${test('fl.value', op, value)})`;
    }
    const entries = dialect === 'sqlite' ? `json_each(${device}.attributes) fa` : `jsonb_each_text(CAST(${device}.attributes AS jsonb)) fa`;
    return `EXISTS (SELECT 1 FROM ${entries} WHERE fa.key = ${bind(field.key)} AND ${test('fa.value', op, value)})`;
  };
  const compile = (n: FilterNode): string => {
    switch (n.kind) {
      case 'and':
        return `(${compile(n.left)} AND ${compile(n.right)})`;
      case 'or':
        return `(${compile(n.left)} OR ${compile(n.right)})`;
      case 'not':
        return `(NOT ${compile(n.expr)})`;
      case 'has':
        return keyed(n.field, 'has', '');
      case 'cmp': {
        const op = n.op === '!=' ? '=' : n.op;
        const positive = n.field.kind === 'column' ? test(`${device}.${n.field.name}`, op, n.value) : keyed(n.field, op, n.value);
        return n.op === '!=' ? `(NOT ${positive})` : `(${positive})`;
      }
    }
  };
  return { sql: compile(node), params };
}
