import type { OpenAPIObject } from '@nestjs/swagger';

/** JSON Schemas written as values (TypeBox), by the component name they have in the OpenAPI documents. */
const namedSchemas = new Map<string, object>();

/**
 * A `$ref` to `schema` under `name` in `components.schemas`, for `@ApiBody({ schema })` and
 * response content: a JSON Schema value (a body schema, an answer) appears once in each document
 * that refers to it, under a name clients generate types from. Naming two schemas alike is a
 * programming error.
 * @throws Error when `name` already names another schema.
 */
export function schemaRef(name: string, schema: object): { $ref: string } {
  const known = namedSchemas.get(name);
  if (known !== undefined && known !== schema) throw new Error(`OpenAPI schema name ${name} names two schemas`);
  namedSchemas.set(name, schema);
  return { $ref: `#/components/schemas/${name}` };
}

/** `document` with every named schema it refers to (see {@link schemaRef}) in `components.schemas`, as plain JSON. */
export function withNamedSchemas(document: OpenAPIObject): OpenAPIObject {
  const text = JSON.stringify(document);
  const used = [...namedSchemas].filter(([name]) => text.includes(`"#/components/schemas/${name}"`));
  if (used.length === 0) return document;
  const schemas = { ...document.components?.schemas };
  for (const [name, schema] of used) schemas[name] = JSON.parse(JSON.stringify(schema)) as object;
  return { ...document, components: { ...document.components, schemas } };
}
