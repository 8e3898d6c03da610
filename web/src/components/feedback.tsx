import type { ReactNode } from 'react';
import { ApiError } from '#web/api/client';
import { useSession } from '#web/session';

/** A problem with what the operator entered, found before asking the server; its message is for people. */
export class InputError extends Error {}

/** What went wrong, in words: the API's own message, or a plain description of anything else. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError || error instanceof InputError) return error.message;
  if (error instanceof Error) return `Something went wrong in the console: ${error.message}`;
  return 'Something went wrong in the console';
}

/** An error next to what caused it; screen readers announce it (`role="alert"`). Nothing when there is no error. */
export function ErrorText({ error, id }: { error: unknown; id?: string }) {
  if (error === null || error === undefined) return null;
  return (
    <p className="error" role="alert" id={id}>
      {errorMessage(error)}
    </p>
  );
}

/** A quiet "loading" line, announced politely. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** A success or progress line, announced politely. */
export function Status({ children }: { children: ReactNode }) {
  return (
    <p className="ok" role="status">
      {children}
    </p>
  );
}

/** Tells a viewer why a page has no forms or buttons that change anything; nothing for an operator who may change things. */
export function ViewerNote() {
  const { canChange } = useSession();
  if (canChange) return null;
  return <p className="note">You have the viewer role: you can see everything here, and change nothing.</p>;
}
