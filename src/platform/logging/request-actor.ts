import type { FastifyRequest } from 'fastify';

const ACTOR = Symbol('firmledger.request-actor');

type WithActor = FastifyRequest & { [ACTOR]?: string };

/** Names who a request speaks for (an operator: `user:alice`, `token:3:ci`), for its log line. */
export function setRequestActor(request: FastifyRequest, label: string): void {
  (request as WithActor)[ACTOR] = label;
}

/** Who a request speaks for, when an operator guard admitted it; `undefined` otherwise. */
export function requestActor(request: FastifyRequest): string | undefined {
  return (request as WithActor)[ACTOR];
}
