/**
 * The operator API as the console calls it: same origin, relative to the page's `<base href>`
 * (the operator base URL), the session cookie sent by the browser. Every failure becomes an
 * {@link ApiError} carrying the server's own message, so the page can show it in words.
 */

/** A failed call: the HTTP status (0 when the server could not be reached) and a message for people. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Whether the session has ended (or never was): the console asks to sign in again. */
  get signedOut(): boolean {
    return this.status === 401;
  }
}

/** Query parameters; `undefined` and empty values are left out. */
export type Params = Record<string, string | number | boolean | undefined>;

/** The absolute URL of an API path (`tenants/acme/devices`, no leading slash) under the operator base URL. */
export function apiUrl(path: string, params: Params = {}): string {
  const url = new URL(path, document.baseURI);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
  }
  return url.href;
}

/** A path segment (tenant name, group name, mac) made safe for a URL path. */
export const segment = (value: string | number): string => encodeURIComponent(String(value));

/** Listeners of 401 answers: the session context signs the console out. */
const signedOutListeners = new Set<(message: string) => void>();
export function onSignedOut(listener: (message: string) => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

async function errorOf(response: Response): Promise<ApiError> {
  let message = `The server answered ${response.status} ${response.statusText}`.trim();
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not JSON (a proxy's error page): keep the status line.
  }
  if (response.status >= 500) message = `${message} (the cause is in the server log)`;
  return new ApiError(response.status, message);
}

const UNREACHABLE = 'Could not reach the server: check your connection and that firmledger is running';

/** Sends a request; resolves with the parsed JSON answer or rejects with an {@link ApiError}. */
export async function call<T>(method: 'GET' | 'POST', path: string, options: { params?: Params; body?: unknown } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options.params), {
      method,
      headers:
        options.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, UNREACHABLE);
  }
  if (!response.ok) {
    const error = await errorOf(response);
    if (error.signedOut) signedOutListeners.forEach((listener) => listener(error.message));
    throw error;
  }
  return (await response.json()) as T;
}

export const get = <T>(path: string, params?: Params): Promise<T> => call<T>('GET', path, { params });
export const post = <T>(path: string, body?: unknown): Promise<T> => call<T>('POST', path, { body });

/**
 * Uploads a file as a raw `application/octet-stream` body, reporting progress (fetch cannot
 * report upload progress, XMLHttpRequest can).
 * @param onProgress bytes sent so far and in all.
 */
export function upload<T>(path: string, params: Params, file: Blob, onProgress: (sent: number, total: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', apiUrl(path, params));
    request.setRequestHeader('content-type', 'application/octet-stream');
    request.setRequestHeader('accept', 'application/json');
    request.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    request.onerror = () => reject(new ApiError(0, UNREACHABLE));
    request.onload = () => {
      const response = new Response(request.responseText, { status: request.status, statusText: request.statusText });
      if (request.status >= 200 && request.status < 300) {
        resolve(JSON.parse(request.responseText) as T);
        return;
      }
      void errorOf(response).then((error) => {
        if (error.signedOut) signedOutListeners.forEach((listener) => listener(error.message));
        reject(error);
      });
    };
    request.send(file);
  });
}
