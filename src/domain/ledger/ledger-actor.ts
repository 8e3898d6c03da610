import { DynamicModule, Global, Module } from '@nestjs/common';

/**
 * Who made an operator change: an operator signed in to the console (`user`), an operator token
 * of the REST API (`token`), or someone running the `firmledger` CLI on the server (`cli`, named
 * by the operating-system account). Recorded in the change's ledger entry and hashed with it.
 */
export interface Actor {
  kind: 'user' | 'token' | 'cli';
  /** The operator token's id (token names need not be unique); absent for the other kinds. */
  id?: number;
  /** Username, token name, or operating-system account. */
  name: string;
}

/** Longest actor label a ledger entry stores, characters. */
export const MAX_ACTOR_LABEL = 200;

/**
 * The text a ledger entry records for an actor: `user:alice`, `token:3:ci-pipeline`, `cli:root`.
 * Usernames cannot contain `:`; a token's id comes before its name, so any name reads back.
 */
export function actorLabel(actor: Actor): string {
  const label = actor.kind === 'token' ? `token:${actor.id}:${actor.name}` : `${actor.kind}:${actor.name}`;
  return label.length > MAX_ACTOR_LABEL ? label.slice(0, MAX_ACTOR_LABEL) : label;
}

/**
 * Injection token of the actor a process records when a change names none: the CLI's account
 * (`cli:<user>`). The server provides none, so what devices change themselves (registrations,
 * success reports, a rollout finishing) names no actor.
 */
export const DEFAULT_ACTOR = Symbol('firmledger.default-actor');

/** Makes {@link DEFAULT_ACTOR} available to the ledger in every module (the CLI imports it). */
@Global()
@Module({})
export class DefaultActorModule {
  static forRoot(actor: Actor): DynamicModule {
    return { module: DefaultActorModule, providers: [{ provide: DEFAULT_ACTOR, useValue: actor }], exports: [DEFAULT_ACTOR] };
  }
}
