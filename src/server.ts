import 'reflect-metadata';
import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import type { Clock } from './common/clock.js';
import { answerFrameworkError } from './common/http-error.filter.js';
import { DEVICE_BODY_LIMIT_BYTES, installJsonBodyParser } from './common/json-body.js';
import { prepareDataDir, type AppConfig } from './config/app-config.js';
import { planListeners } from './listeners/listener-plan.js';
import { ListenerRouting } from './listeners/listener-routing.js';
import { mountOpenApi } from './openapi/openapi.js';

/** A started server. */
export interface RunningServer {
  app: NestFastifyApplication;
  /** Stops accepting, finishes in-flight requests, closes the database. */
  close(): Promise<void>;
}

/** Options for tests and embedding. */
export interface StartOptions {
  /** Replaces the system clock (tests fix time). */
  clock?: Clock;
  logger?: LoggerService | LogLevel[] | false;
}

/**
 * Builds the application and opens one listener per distinct host:port of the component
 * base URLs (CONTRACT.md §2). Migrations run before the first request is accepted.
 */
export async function startServer(config: AppConfig, options: StartOptions = {}): Promise<RunningServer> {
  const ready = prepareDataDir(config);
  const listeners = planListeners(ready.urls);
  const routing = new ListenerRouting(listeners);
  const { serverFactory, routerOptions } = routing.fastifyOptions();
  const adapter = new FastifyAdapter({
    serverFactory,
    // fastify takes a hop count too; its option type omits it.
    trustProxy: ready.trustProxy as boolean | string,
    bodyLimit: DEVICE_BODY_LIMIT_BYTES,
    routerOptions: { ...routerOptions, ignoreTrailingSlash: true },
    frameworkErrors: answerFrameworkError,
    return503OnClosing: true,
  });
  const builder = NestFactory.create<NestFastifyApplication>(AppModule.forRoot(ready, options.clock), adapter, {
    bodyParser: false,
    logger: options.logger ?? ready.logLevels,
    abortOnError: false,
  });
  const app = await builder;
  const fastify = app.getHttpAdapter().getInstance();
  installJsonBodyParser(fastify);
  routing.install(fastify);
  mountOpenApi(app, ready);
  const first = listeners[0];
  await app.listen(first.port, first.host);
  await routing.listenOthers();
  new Logger('Listeners').log(
    listeners.map((l) => `${l.key} → ${l.mounts.map((m) => `${m.component}${m.prefix || '/'}`).join(', ')}`).join('; '),
  );
  return { app, close: () => app.close() };
}
