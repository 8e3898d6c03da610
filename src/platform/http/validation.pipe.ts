import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldException } from './http-error.filter.js';
import { unstorableField, unstorableTextMessage } from '#src/platform/common/input-rules.js';
import { RefusedJson, refusedBody } from './json-body.js';
import { BodyMessages } from './body-schema.js';

/**
 * A shortcut for the common valid body of a hot endpoint: returns the DTO exactly as full
 * validation would build it (same class, canonicalized and whitelisted fields), or `undefined`
 * to validate fully. It must accept only bodies the full validation accepts, so every refusal,
 * and its message, still comes from the full validation.
 */
export type BodyShortcut<T extends object> = (body: Readonly<Record<string, unknown>>) => T | undefined;

const shortcuts = new Map<unknown, BodyShortcut<object>>();

/**
 * Registers the {@link BodyShortcut} of a body DTO. class-transformer and class-validator cost
 * tens of microseconds per body, about as much as the rest of a next-rollout request
 * (bench/RESULTS.md); a shortcut checks the usual case directly.
 */
export function registerBodyShortcut<T extends object>(dto: new () => T, shortcut: BodyShortcut<T>): void {
  shortcuts.set(dto, shortcut);
}

/** The shortcut registered for a DTO class (for specs). */
export function bodyShortcut<T extends object>(dto: new () => T): BodyShortcut<T> | undefined {
  return shortcuts.get(dto) as BodyShortcut<T> | undefined;
}

/**
 * The DTO the {@link BodyShortcut} registered for `dto` makes of `body`: `undefined` when there is
 * none, when `body` is not a JSON object, or when the shortcut leaves it to full validation.
 */
export function shortcutDto<T extends object>(dto: unknown, body: unknown): T | undefined {
  const shortcut = shortcuts.get(dto);
  if (shortcut === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  return shortcut(body as Record<string, unknown>) as T | undefined;
}

/** Printable ASCII of a length: text whose class-validator length is its JS length. */
export function printableAscii(value: unknown, min: number, max: number): value is string {
  return typeof value === 'string' && value.length >= min && value.length <= max && /^[\x20-\x7E]*$/.test(value);
}

/**
 * The global validation pipe (docs/decisions.md §3): a body the JSON parser refused (malformed,
 * nested too deep, a prototype-poisoning key, text no engine stores) and a missing body are 400;
 * a missing, mistyped or out-of-bounds field is 400 with a message that names the field, and so
 * is text that is not valid Unicode or holds a NUL, in a body field, a query parameter or a path
 * parameter; unknown extra fields are dropped, never rejected (old clients send extra fields).
 * A field's 400 is a {@link FieldException} carrying the field's name (operator answers show it).
 */
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: false,
      stopAtFirstError: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => firstProblem(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A single path parameter reaches its own pipe (MacParamPipe, IdParamPipe...) as the text it
    // was sent as: ValidationPipe would turn `1e3` into 1000 before that pipe could refuse it.
    if (metadata.type === 'param' && metadata.data !== undefined) return storableText(value, metadata.data);
    if (metadata.type === 'body') {
      if (value instanceof RefusedJson) throw refusedBody(value);
      const dto = shortcutDto(metadata.metatype, value);
      if (dto) return dto;
      if (metadata.metatype && metadata.metatype !== Object && (value === undefined || value === null)) {
        throw new BadRequestException(BodyMessages.missing);
      }
      if (metadata.metatype && metadata.metatype !== Object && (typeof value !== 'object' || Array.isArray(value))) {
        throw new BadRequestException(BodyMessages.notObject);
      }
    }
    const result: unknown = await super.transform(value, metadata);
    // After validation: only the fields a DTO declares are checked (unknown extra fields are
    // dropped, never rejected), and a mistyped field is named as such first.
    return metadata.type === 'body' || metadata.type === 'query' ? storableText(result, metadata.data ?? '') : result;
  }
}

/**
 * `value` when all its text is storable (valid Unicode without NUL, see `isStorableText`), else
 * 400 naming the field: such text could never be stored, and PostgreSQL refuses
 * it in any query.
 */
function storableText<T>(value: T, field: string): T {
  const unstorable = unstorableField(value, field);
  if (unstorable === '') throw new BadRequestException(unstorableTextMessage('body'));
  if (unstorable !== undefined) throw new FieldException(unstorable, unstorableTextMessage(unstorable));
  return value;
}

/**
 * The 400 of the first failed constraint: its message, and the field it failed on (a nested
 * field as a dotted path: `parent.child`).
 */
function firstProblem(errors: ValidationError[], parent = ''): BadRequestException {
  for (const error of errors) {
    const field = parent === '' ? error.property : `${parent}.${error.property}`;
    const constraint = error.constraints && Object.values(error.constraints)[0];
    if (constraint) return new FieldException(field, constraint);
    if (error.children?.length) return firstProblem(error.children, field);
  }
  return new BadRequestException('Invalid request');
}
