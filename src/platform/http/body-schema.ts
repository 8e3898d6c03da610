import { BadRequestException, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Static, TObject } from 'typebox';
import { Compile } from 'typebox/compile';
import { FieldException } from './http-error.filter.js';
import { RefusedJson, refusedBody } from './json-body.js';

/** 400 texts of a body that is not a JSON object at all (the same as the validation pipe's). */
export const BodyMessages = {
  missing: 'Body is required',
  notObject: 'Body must be a JSON object',
} as const;

/**
 * The 400 text of a field whose value failed a JSON Schema keyword: `required` (absent), `type`,
 * `minLength`, `maxLength`, `pattern`... `value` is what was sent (`undefined` when absent).
 */
export type FieldMessage = (keyword: string, value: unknown) => string;

/** Outcome of {@link BodySchema.validate}: the request's body as the handler takes it, or its 400. */
export type BodyOutcome<T> = { value: T; error?: undefined } | { error: BadRequestException; value?: undefined };

/**
 * A request body written once as a JSON Schema (TypeBox): Fastify validates every request of the
 * route with it before any handler runs ({@link installBodySchemas}), the OpenAPI document shows
 * the same schema, and the handler reads the outcome with {@link SchemaBody}.
 */
export interface BodySchema<S extends TObject = TObject, T = Static<S>> {
  /** The JSON Schema: for `@RouteSchema({ body })` and `@ApiBody({ schema })`. */
  readonly schema: S;
  /**
   * The body as the handler takes it (only the schema's fields, shaped), or the 400 of the first
   * field, in the schema's order, that breaks it: a {@link FieldException} with that field's
   * message. Not valid JSON, absent or not an object: the validation pipe's texts (docs/decisions.md §3).
   */
  validate(body: unknown): BodyOutcome<T>;
}

/** Every body schema made by {@link bodySchema}, by its JSON Schema object (what Fastify compiles). */
const bodySchemas = new WeakMap<object, BodySchema<TObject, unknown>>();

/**
 * Makes a {@link BodySchema}: `schema` compiled once (TypeBox's JIT validator), `messages` gives
 * each field's 400 texts, and `shape` turns a valid body into the handler's value (canonical forms,
 * only the declared fields: extra fields that older clients send are dropped, never refused).
 */
export function bodySchema<S extends TObject, T>(
  schema: S,
  messages: { readonly [K in keyof Static<S> & string]-?: FieldMessage },
  shape: (valid: Static<S>) => T,
): BodySchema<S, T> {
  const compiled = Compile(schema);
  const order = Object.keys(schema.properties);
  const made: BodySchema<S, T> = {
    schema,
    validate(body: unknown): BodyOutcome<T> {
      // A refused body is an object too: told apart before a schema of optional fields could pass it.
      if (body instanceof RefusedJson) return { error: refusedBody(body) };
      if (compiled.Check(body)) return { value: shape(body) };
      if (body === undefined || body === null) return { error: new BadRequestException(BodyMessages.missing) };
      if (typeof body !== 'object' || Array.isArray(body)) return { error: new BadRequestException(BodyMessages.notObject) };
      let first: { field: string; keyword: string } | undefined;
      for (const error of compiled.Errors(body)) {
        const fields =
          error.keyword === 'required'
            ? ((error.params as { requiredProperties?: string[] }).requiredProperties ?? [])
            : [error.instancePath.split('/')[1] ?? ''];
        for (const field of fields) {
          if (!order.includes(field)) continue;
          if (first === undefined || order.indexOf(field) < order.indexOf(first.field)) first = { field, keyword: error.keyword };
        }
      }
      if (first === undefined) return { error: new BadRequestException('Invalid request') };
      const value = (body as Record<string, unknown>)[first.field];
      const message = (messages as Record<string, FieldMessage>)[first.field](first.keyword, value);
      return { error: new FieldException(first.field, message) };
    },
  };
  bodySchemas.set(schema, made);
  return made;
}

/**
 * Lets Fastify validate the bodies of routes declared with `@RouteSchema({ body: x.schema })` of
 * a {@link bodySchema}, with its compiled validator; the outcome is attached to the request
 * (`attachValidation`) rather than answered, so the route's guard still answers first (a device
 * without a valid token gets 401 whatever its body) and the handler reads it with
 * {@link SchemaBody}. Call before the application registers its routes.
 * @throws Error at start-up for a route whose body or other request part has a schema not made
 *   by {@link bodySchema}: request parts are validated by schemas of this kind or by the validation pipe.
 */
export function installBodySchemas(fastify: FastifyInstance): void {
  fastify.setValidatorCompiler(({ schema, httpPart, url }) => {
    const body = httpPart === 'body' ? bodySchemas.get(schema) : undefined;
    if (body === undefined) throw new Error(`${url}: a ${httpPart ?? 'request'} schema not made with bodySchema()`);
    return (data: unknown) => body.validate(data);
  });
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema?.body !== undefined) route.attachValidation = true;
  });
}

/**
 * The body of a route validated by its {@link bodySchema} (see {@link installBodySchemas}): the
 * shaped value, or the 400 of the first field that breaks the schema (thrown, so it reaches the
 * exception filter after the route's guards).
 */
export const SchemaBody = createParamDecorator((_data: unknown, context: ExecutionContext): unknown => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const schema = request.routeOptions.schema?.body;
  if (schema === undefined || !bodySchemas.has(schema as object)) {
    throw new Error(`${request.routeOptions.url ?? ''}: @SchemaBody() on a route without a body schema`);
  }
  if (request.validationError) throw request.validationError;
  return request.body;
});
