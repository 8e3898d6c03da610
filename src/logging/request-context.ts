import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while serving a request carries. */
export interface RequestContext {
  reqId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `work` (and everything it starts) inside the request's context. */
export function runInRequestContext(context: RequestContext, work: () => void): void {
  storage.run(context, work);
}

/** The context of the request being served, if any. */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
