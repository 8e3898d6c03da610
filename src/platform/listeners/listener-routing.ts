import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerOptions, RouteOptions } from 'fastify';
import type { ComponentName } from '#src/platform/config/components.js';
import type { Listener, Mount } from './listener-plan.js';

/**
 * Internal path segment under which a component's routes are declared in Nest
 * (`RouterModule` path); {@link ListenerRouting} moves each route to the component's real
 * prefix and constrains it to the listeners the component is mounted on.
 */
export const componentMarker = (component: ComponentName): string => `__${component}`;

const LISTENER = Symbol('firmledger.listener');
type TaggedSocket = Socket & { [LISTENER]?: string };

/**
 * Serves several listeners from one fastify instance (docs/decisions.md §2).
 *
 * Every route carries a `listener` constraint naming its component; a request is matched only
 * against the routes of the components mounted on the listener it arrived on, so a component's
 * routes answer 404 on any other listener or prefix.
 */
export class ListenerRouting {
  private readonly servers = new Map<string, Server | TlsServer>();
  private handler?: RequestListener;

  constructor(private readonly listeners: Listener[]) {}

  /** Options to merge into the fastify constructor options. */
  fastifyOptions(): Required<Pick<FastifyServerOptions, 'serverFactory' | 'routerOptions'>> {
    const componentsOn = new Map(this.listeners.map((l) => [l.key, l.mounts.map((m) => m.component)]));
    return {
      serverFactory: (handler) => {
        this.handler = handler;
        return this.serverFor(this.listeners[0]);
      },
      routerOptions: {
        constraints: {
          listener: {
            name: 'listener',
            mustMatchWhenDerived: true,
            storage() {
              const masks = new Map<string, number>();
              return {
                // find-my-way stores a handler bitmask per constraint value (here: a component)…
                set: (component: string, mask: number) => void masks.set(component, mask),
                // …and asks with the derived value (here: a listener key): OR of its components' masks.
                get: (listenerKey: string) =>
                  (componentsOn.get(listenerKey) ?? []).reduce((acc, c) => acc | (masks.get(c) ?? 0), 0) || null,
              } as never;
            },
            deriveConstraint: (req: IncomingMessage) => (req.socket as TaggedSocket)[LISTENER] ?? '',
            validate: (component: unknown) => {
              if (typeof component !== 'string') throw new TypeError('listener constraint must be a component name');
            },
          },
        },
      },
    };
  }

  /** Registers the `onRoute` hook that moves marked routes to their mounts. Call before `init()`. */
  install(fastify: FastifyInstance): void {
    const mountOf = new Map<ComponentName, string>();
    for (const listener of this.listeners) {
      for (const mount of listener.mounts) mountOf.set(mount.component, mount.prefix);
    }
    fastify.addHook('onRoute', (route: RouteOptions & { path?: string }) => {
      const match = /^\/__([a-z]+)(\/.*)?$/.exec(route.url);
      if (!match) return;
      const component = match[1] as ComponentName;
      const prefix = mountOf.get(component);
      if (prefix === undefined) throw new Error(`route ${route.url} belongs to no mounted component`);
      route.url = `${prefix}${match[2] ?? ''}` || '/';
      route.path = route.url;
      route.constraints = { ...route.constraints, listener: component };
    });
    // All listeners stop accepting at once (fastify closes the first one after its preClose
    // hooks); requests in flight finish. A keep-alive socket is closed as soon as it is idle,
    // also when it becomes idle later (its response was in flight), so closing never waits for
    // keep-alive timeouts.
    let closed: Promise<void>[] = [];
    fastify.addHook('preClose', (done) => {
      const servers = [...this.servers.values()];
      const reaper = setInterval(() => servers.forEach((server) => server.closeIdleConnections()), 50).unref();
      closed = servers.slice(1).map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
      const first = servers[0];
      const firstClosed = first?.listening ? once(first, 'close') : Promise.resolve();
      void Promise.all([...closed, firstClosed]).finally(() => clearInterval(reaper));
      servers.forEach((server) => server.closeIdleConnections());
      done();
    });
    fastify.addHook('onClose', async () => {
      await Promise.all(closed);
    });
  }

  /**
   * The component whose base URL `path` is under on the listener `raw` arrived on (the longest
   * matching prefix); `undefined` when none. For labelling requests no route matched.
   */
  componentFor(raw: IncomingMessage, path: string): ComponentName | undefined {
    const key = (raw.socket as TaggedSocket | undefined)?.[LISTENER];
    let best: Mount | undefined;
    for (const mount of this.listeners.find((l) => l.key === key)?.mounts ?? []) {
      const under = path === mount.prefix || path.startsWith(`${mount.prefix}/`);
      if (under && (!best || mount.prefix.length > best.prefix.length)) best = mount;
    }
    return best?.component;
  }

  /** Opens every listener after the first (fastify's own `listen` opens the first). */
  async listenOthers(): Promise<void> {
    for (const listener of this.listeners.slice(1)) {
      const server = this.serverFor(listener);
      await new Promise<void>((done, fail) => {
        server.once('error', fail);
        server.listen(listener.port, listener.host, () => {
          server.off('error', fail);
          done();
        });
      });
    }
  }

  private serverFor(listener: Listener): Server | TlsServer {
    let server = this.servers.get(listener.key);
    if (!server) {
      const handler = this.handler;
      if (!handler) throw new Error('fastify has not created its server yet');
      // An https server is an http server over TLS sockets: the same request handling, hooks and closing.
      server = listener.tls ? createTlsServer({ cert: listener.tls.cert, key: listener.tls.key }, handler) : createServer(handler);
      // A request's socket is the TLS socket on an https listener, which `secureConnection` hands over.
      server.on(listener.tls ? 'secureConnection' : 'connection', (socket: TaggedSocket) => {
        socket[LISTENER] = listener.key;
      });
      this.servers.set(listener.key, server);
    }
    return server;
  }
}
