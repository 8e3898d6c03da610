import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Logger } from 'pino';
import type { ComponentName } from '#src/platform/config/components.js';
import { requestActor } from './request-actor.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** Labels of one finished request, as the metrics use them. */
export interface RequestLabels {
  method: string;
  /** The route pattern as mounted (`/fleet/api/device/:mac`), or `unmatched`. */
  route: string;
  status_code: string;
  /** The component whose route answered, or whose prefix the unmatched path is under; else `none`. */
  component: string;
}

/** Where the observer reports each finished request's duration. */
export interface RequestMetricsSink {
  observe(labels: RequestLabels, seconds: number): void;
}

export interface RequestObserverOptions {
  logger: Logger;
  metrics: RequestMetricsSink;
  /** The component an unmatched request's listener serves under the path, if any. */
  componentOf: (raw: IncomingMessage, path: string) => ComponentName | undefined;
}

/** What the observer keeps in a route's config. */
interface ObservedRoute {
  mountedUrl: string;
  component: string | undefined;
}

/** Longest path logged, characters; the rest is cut. */
const MAX_LOGGED_PATH = 512;

/**
 * Installs, once, the hooks that observe every request: the request id is echoed in
 * `X-Request-Id` (lines about a request written elsewhere carry it too: a refused login's reason,
 * a 500's cause; see `RequestId`); when the response is
 * done, one JSON line (`method`, `path` without the query string, `route`, `status`,
 * `responseTimeMs`, `reqId`, `component`, and for operator requests `actor`: who made them) is
 * logged and the request is counted and timed.
 * Headers, bodies and query strings are never logged (they carry tokens and signatures).
 * Call after the listener routing's `onRoute` hook is installed and before the app is initialised.
 */
export function installRequestObserver(fastify: FastifyInstance, options: RequestObserverOptions): void {
  const { logger, metrics } = options;

  // The listener routing's own onRoute hook (added earlier) has moved the route to its mount and
  // set its component constraint; fastify's `routeOptions.url` keeps the path as declared.
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const component = (route.constraints as { listener?: unknown } | undefined)?.listener;
    const observed: ObservedRoute = { mountedUrl: route.url, component: typeof component === 'string' ? component : undefined };
    route.config = { ...route.config, ...observed };
  });

  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });

  // One labels object per (method, route, status, component), built once: the metrics see the
  // same object again instead of a new one per request. Routes are finite; unmatched paths all
  // share the route `unmatched`, so the map stays small.
  const labelsOf = new Map<string, RequestLabels>();
  const labels = (method: string, route: string, status: number, component: string): RequestLabels => {
    const key = `${method} ${status} ${component} ${route}`;
    let found = labelsOf.get(key);
    if (found === undefined) {
      found = { method, route, status_code: String(status), component };
      labelsOf.set(key, found);
    }
    return found;
  };

  fastify.addHook('onResponse', (request, reply, done) => {
    // Fastify times every request from routing to the response's end.
    const seconds = reply.elapsedTime / 1000;
    const observed = request.is404 ? undefined : (request.routeOptions.config as Partial<ObservedRoute> | undefined);
    const route = observed?.mountedUrl ?? 'unmatched';
    const status = reply.statusCode;
    const level = status >= 500 ? 'error' : 'info';
    // The path is needed only for a line that is written, or to find an unmatched request's component.
    const path = observed?.component === undefined || logger.isLevelEnabled(level) ? pathOf(request.url) : '';
    const component = observed?.component ?? options.componentOf(request.raw, path) ?? 'none';
    metrics.observe(labels(request.method, route, status, component), seconds);
    if (!logger.isLevelEnabled(level)) {
      done();
      return;
    }
    const line = {
      reqId: request.id,
      component,
      method: request.method,
      path: path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path,
      route,
      status,
      responseTimeMs: Math.round(seconds * 1e6) / 1e3,
      actor: requestActor(request),
    };
    logger[level](line, 'request completed');
    done();
  });
}

/**
 * The component whose route is serving `request` (as {@link installRequestObserver} noted it on
 * the route); `undefined` when no route matched or the observer is not installed.
 */
export function routeComponent(request: FastifyRequest): ComponentName | undefined {
  if (request.is404) return undefined;
  return (request.routeOptions.config as Partial<ObservedRoute> | undefined)?.component as ComponentName | undefined;
}

/** The path of a request target, without its query string (or a fragment a client sent). */
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}
