import { ApiError } from '#web/api/client';

/**
 * The API's refusal `error` when its answer names one of `fields` (a 400's `field`, or a field
 * inside one: `waves.2` is about `waves`), so the form shows it at that field; else `undefined`.
 */
export function refusalAt(error: unknown, ...fields: string[]): ApiError | undefined {
  if (!(error instanceof ApiError) || error.field === undefined) return undefined;
  const top = error.field.split('.')[0];
  return fields.includes(top) ? error : undefined;
}

/** The attributes that tie an input to its problem (and its help, if any) for screen readers. */
export function describedBy(errorId: string, problem: string | undefined, help?: string) {
  const ids = [help, problem ? errorId : undefined].filter(Boolean).join(' ');
  return { 'aria-invalid': problem ? true : undefined, 'aria-describedby': ids || undefined };
}

/** A problem shown right under its field, announced to screen readers; nothing without one. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <p className="error field-error" id={id} role="alert">
      {message}
    </p>
  ) : null;
}
