import fc from 'fast-check';

/** The part of an OpenAPI 3 schema object the request generator reads. */
export interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  example?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  items?: Schema;
  minItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  allOf?: Schema[];
  oneOf?: Schema[];
}

/** Follows `$ref`s into `#/components/schemas` and merges `allOf`. */
export function resolveSchema(schema: Schema, components: Record<string, Schema>): Schema {
  if (schema.$ref) return resolveSchema(components[schema.$ref.replace('#/components/schemas/', '')], components);
  if (schema.allOf) {
    const parts = schema.allOf.map((part) => resolveSchema(part, components));
    return {
      ...schema,
      type: 'object',
      properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})) as Record<string, Schema>,
      required: parts.flatMap((part) => part.required ?? []),
    };
  }
  return schema;
}

/** A value the schema accepts: its example, else its default, first enum value, or the least value of its type. */
export function exampleOf(schema: Schema, components: Record<string, Schema>): unknown {
  const s = resolveSchema(schema, components);
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return s.items ? [exampleOf(s.items, components)] : [];
    case 'object': {
      const body: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(s.properties ?? {})) body[name] = exampleOf(property, components);
      return body;
    }
    default:
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
  }
}

/**
 * Values drawn from inside the schema: any text within its length bounds (its example when it
 * has a pattern or format, which random text would not match), any number within its bounds,
 * an enum value, arrays of such items.
 */
export function insideArbitrary(schema: Schema, components: Record<string, Schema>): fc.Arbitrary<unknown> {
  const s = resolveSchema(schema, components);
  if (s.enum) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case 'integer':
    case 'number': {
      const min = s.minimum ?? -(2 ** 31);
      const max = s.maximum ?? 2 ** 31 - 1;
      return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) });
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(s.items ? insideArbitrary(s.items, components) : fc.string(), { minLength: s.minItems ?? 0, maxLength: 5 });
    case 'string':
      if (s.pattern === undefined && s.format === undefined) {
        return fc.string({ unit: 'grapheme', minLength: s.minLength ?? 0, maxLength: s.maxLength ?? 40 });
      }
      return fc.constant(exampleOf(s, components));
    default:
      return fc.constant(exampleOf(s, components));
  }
}

/**
 * Values just outside the schema: one past each length or number bound, text that breaks its
 * pattern or enum, NUL and lone surrogates, another JSON type, `null`, and for integers the
 * edges 2^31 and 2^53.
 */
export function outsideValues(schema: Schema, components: Record<string, Schema>): unknown[] {
  const s = resolveSchema(schema, components);
  const values: unknown[] = [null, [], {}];
  switch (s.type) {
    case 'integer':
    case 'number':
      if (s.minimum !== undefined) values.push(s.minimum - 1);
      if (s.maximum !== undefined) values.push(s.maximum + 1);
      values.push(1.5, -1, 2 ** 31, 2 ** 53, 1e300, '1', true);
      break;
    case 'boolean':
      values.push('true', 1, 0);
      break;
    case 'array':
      values.push('x', 1, [null], [1], [{}]);
      if ((s.minItems ?? 0) > 0) values.push(Array.from({ length: s.minItems! - 1 }, () => exampleOf(s.items ?? {}, components)));
      if (s.items) values.push(...outsideValues(s.items, components).map((item) => [item]));
      break;
    case 'object':
      values.push('x', 1);
      break;
    default:
      if ((s.minLength ?? 0) > 0) values.push('x'.repeat(s.minLength! - 1));
      if (s.maxLength !== undefined) values.push('x'.repeat(s.maxLength + 1));
      if (s.pattern !== undefined || s.enum !== undefined) values.push(`${String(exampleOf(s, components))}!`);
      values.push('\u0000', `${String(exampleOf(s, components))}\u0000`, '\ud800', 'x\udfffy', 1, 2 ** 31, true);
  }
  return values;
}
