import type { Type } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/**
 * A shortcut for the common case of a hot route, served before Nest's request pipeline (guards,
 * pipes, interceptors, exception filters), which costs about as much per request as a bare
 * Fastify server does in all (bench/RESULTS.md). It answers the requests it can answer exactly
 * as the route would, and leaves every other one, untouched, to the route: errors keep their one
 * place, the route's own guard, pipes and filters.
 */
export interface RouteShortcut {
  /**
   * Answers the request and resolves `true`; or resolves `false` without having answered or
   * written anything, so the route serves the request as if there were no shortcut.
   */
  serve(request: FastifyRequest, reply: FastifyReply): Promise<boolean>;
}

/** Key of the route config (Fastify route options) that names a route's shortcut. */
const SHORTCUT = 'firmledger.shortcut';

/**
 * Serves the decorated route through a {@link RouteShortcut} provider first (a provider of the
 * route's module). The route stays the complete implementation, and its OpenAPI description.
 */
export const ShortcutWith = (shortcut: Type<RouteShortcut>): MethodDecorator => RouteConfig({ [SHORTCUT]: shortcut });

/**
 * Runs the shortcut of every route declared with {@link ShortcutWith} as the route's last
 * `preHandler` (after the body is parsed; an answer there skips the handler). `resolve` finds
 * the provider (the Nest application's `get`). Call before the application registers its routes.
 */
export function installRouteShortcuts(fastify: FastifyInstance, resolve: (type: Type<RouteShortcut>) => RouteShortcut): void {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const type = (route.config as Record<string, unknown> | undefined)?.[SHORTCUT] as Type<RouteShortcut> | undefined;
    if (type === undefined) return;
    const shortcut = resolve(type);
    const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [
      ...own,
      async function shortcutFirst(request: FastifyRequest, reply: FastifyReply) {
        if (await shortcut.serve(request, reply)) return reply;
      },
    ];
  });
}
