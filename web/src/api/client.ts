/**
 * The operator API as the console calls it: same origin, under the page's `<base href>` (the
 * operator base URL), the session cookie sent by the browser. Paths, parameters, bodies and
 * answers are typed from `openapi/operator.json` (openapi-fetch over the types openapi-typescript
 * generates at build time, `npm run openapi:web`), so a call that does not match the document does
 * not compile. Every failure becomes an {@link ApiError} carrying the server's own message, and the
 * field it is about when the API names one, so the page can show it in words at that field.
 */
import createClient, { createQuerySerializer } from 'openapi-fetch';
import type { components, paths } from './operator-api.generated';

/**
 * A failed call: the HTTP status (0 when the server could not be reached), a message for people,
 * and the request field it is about when the API named one (`field` of a 400 answer: a body field,
 * query or path parameter as the request spells it).
 */
export class ApiError extends Error {
  /**
   * @param rows the bad rows of a refused bulk import (`errors` of its 400 answer), each named by
   *   line; `[]` for any other refusal.
   */
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
    readonly rows: readonly ImportRowError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Whether the session has ended (or never was): the console asks to sign in again. */
  get signedOut(): boolean {
    return this.status === 401;
  }
}

/** The operator base URL without its trailing slash (openapi-fetch appends `/tenants/…`). */
const baseUrl = new URL('.', document.baseURI).href.replace(/\/$/, '');

/** Query parameters as openapi-fetch writes them, leaving out empty text too (an empty filter is no filter). */
const querySerializer = (() => {
  const serialize = createQuerySerializer<Record<string, unknown>>();
  return (query: Record<string, unknown>) => serialize(Object.fromEntries(Object.entries(query).filter(([, value]) => value !== '')));
})();

/**
 * The typed client: `api.GET('/tenants/{tenant}/rollouts', { params: { path: { tenant }, query: { status } } })`.
 * Wrap each call in {@link answer} to get its data or an {@link ApiError}.
 */
export const api = createClient<paths>({ baseUrl, credentials: 'same-origin', headers: { accept: 'application/json' }, querySerializer });

/** Listeners of 401 answers: the session context signs the console out. */
const signedOutListeners = new Set<(message: string) => void>();
export function onSignedOut(listener: (message: string) => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** The {@link ApiError} of a non-2xx answer: the body's `message` and `field`, else the status line. */
function errorOf(status: number, statusText: string, body: unknown): ApiError {
  const { message, field, errors } = (typeof body === 'object' && body !== null ? body : {}) as {
    message?: unknown;
    field?: unknown;
    errors?: unknown;
  };
  // Not JSON, or not ours (a proxy's error page): the status line.
  let text = typeof message === 'string' ? message : `The server answered ${status} ${statusText}`.trim();
  if (status >= 500) text = `${text} (the cause is in the server log)`;
  const rows = Array.isArray(errors) ? (errors as ImportRowError[]).filter((row) => typeof row?.message === 'string') : [];
  const error = new ApiError(status, text, typeof field === 'string' ? field : undefined, rows);
  if (error.signedOut) signedOutListeners.forEach((listener) => listener(error.message));
  return error;
}

const UNREACHABLE = 'Could not reach the server: check your connection and that firmledger is running';

/**
 * The data of an answer of {@link api}; rejects with an {@link ApiError} when the server refused
 * (its message and field) or could not be reached (status 0).
 */
export async function answer<D>(request: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  let result: { data?: D; error?: unknown; response: Response };
  try {
    result = await request;
  } catch (failure) {
    // fetch rejects with a TypeError when no answer came; anything else (an unreadable answer) is shown as it is.
    if (failure instanceof TypeError) throw new ApiError(0, UNREACHABLE);
    throw failure;
  }
  const { data, error, response } = result;
  if (!response.ok) throw errorOf(response.status, response.statusText, error);
  return data as D;
}

/** `POST /tenants/{tenant}/firmware` as the document describes it. */
type FirmwareUpload = paths['/tenants/{tenant}/firmware']['post'];

/** `POST /tenants/{tenant}/devices/import` as the document describes it. */
type DeviceImport = paths['/tenants/{tenant}/devices/import']['post'];

/** One bad row of a refused bulk import. */
export type ImportRowError = components['schemas']['DeviceImportRowError'];

/**
 * Publishes a firmware binary: `POST /tenants/{tenant}/firmware?version=&device_type=` with the file
 * as a raw `application/octet-stream` body, reporting progress. Rejects with an {@link ApiError} like {@link answer}.
 * @param onProgress bytes sent so far and in all.
 */
export function uploadFirmware(
  tenant: string,
  query: FirmwareUpload['parameters']['query'],
  file: Blob,
  onProgress: (sent: number, total: number) => void,
): Promise<FirmwareUpload['responses'][201]['content']['application/json']> {
  return sendFile(
    `/tenants/${encodeURIComponent(tenant)}/firmware?${querySerializer(query)}`,
    'application/octet-stream',
    file,
    onProgress,
  );
}

/**
 * Imports devices in bulk (docs/decisions.md §14): `POST /tenants/{tenant}/devices/import` with the
 * file as its body, `application/x-ndjson` for a `.ndjson` or `.jsonl` file, else `text/csv`,
 * reporting progress. Rejects with an {@link ApiError} whose `rows` are the bad rows.
 * @param onProgress bytes sent so far and in all.
 */
export function importDevices(
  tenant: string,
  file: File,
  onProgress: (sent: number, total: number) => void,
): Promise<DeviceImport['responses'][200]['content']['application/json']> {
  const type = /\.(ndjson|jsonl)$/i.test(file.name) ? 'application/x-ndjson' : 'text/csv';
  return sendFile(`/tenants/${encodeURIComponent(tenant)}/devices/import`, type, file, onProgress);
}

/**
 * POSTs `file` as the raw body of `path` (under the operator base URL) with `contentType`,
 * reporting progress (fetch cannot report upload progress, XMLHttpRequest can); resolves to the
 * JSON answer, rejects with an {@link ApiError} like {@link answer}.
 */
function sendFile<T>(path: string, contentType: string, file: Blob, onProgress: (sent: number, total: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', `${baseUrl}${path}`);
    request.setRequestHeader('content-type', contentType);
    request.setRequestHeader('accept', 'application/json');
    request.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    request.onerror = () => reject(new ApiError(0, UNREACHABLE));
    request.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        body = request.responseText;
      }
      if (request.status >= 200 && request.status < 300) resolve(body as T);
      else reject(errorOf(request.status, request.statusText, body));
    };
    request.send(file);
  });
}
