import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { installRouteShortcuts, type RouteShortcut } from './route-shortcut.js';

/** Answers `{"by":"shortcut"}` when the body says `{"easy":true}`, else leaves the request to the route. */
class EasyShortcut implements RouteShortcut {
  async serve(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    if ((request.body as { easy?: unknown } | undefined)?.easy !== true) return false;
    await reply.send({ by: 'shortcut' });
    return true;
  }
}

describe(installRouteShortcuts.name, () => {
  it('answers through the shortcut when it can, and through the route, untouched, when it cannot', async () => {
    const fastify = Fastify();
    const resolved: unknown[] = [];
    installRouteShortcuts(fastify, (type) => {
      resolved.push(type);
      return new type();
    });
    const routeSaw: unknown[] = [];
    fastify.route({
      method: 'POST',
      url: '/hot',
      // What `@ShortcutWith(EasyShortcut)` puts in the route options.
      config: { 'firmledger.shortcut': EasyShortcut },
      preHandler: (request, _reply, done) => {
        (request as { ownHook?: boolean }).ownHook = true;
        done();
      },
      handler: async (request) => {
        routeSaw.push(request.body);
        return { by: 'route', ownHook: (request as { ownHook?: boolean }).ownHook };
      },
    });
    fastify.post('/plain', async () => ({ by: 'plain' }));
    try {
      const easy = await fastify.inject({ method: 'POST', url: '/hot', payload: { easy: true } });
      assert.deepEqual(easy.json(), { by: 'shortcut' });
      const hard = await fastify.inject({ method: 'POST', url: '/hot', payload: { easy: false } });
      assert.deepEqual(hard.json(), { by: 'route', ownHook: true });
      assert.deepEqual(routeSaw, [{ easy: false }]);
      assert.deepEqual((await fastify.inject({ method: 'POST', url: '/plain', payload: { easy: true } })).json(), { by: 'plain' });
      assert.deepEqual(resolved, [EasyShortcut]);
    } finally {
      await fastify.close();
    }
  });
});
