import 'reflect-metadata';
import { Logger, type LoggerService, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module.js';
import type { Clock } from '#src/platform/common/clock.js';
import { PATH_PARAM_MAX_LENGTH } from '#src/platform/common/device-identifier.js';
import { answerFrameworkError } from '#src/platform/http/http-error.filter.js';
import { DEVICE_BODY_LIMIT_BYTES, installJsonBodyParser } from '#src/platform/http/json-body.js';
import { installRouteShortcuts } from '#src/platform/http/route-shortcut.js';
import { installBodySchemas } from '#src/platform/http/body-schema.js';
import { installStreamBodyParser } from '#src/platform/http/stream-body.js';
import { prepareDataDir, type AppConfig } from '#src/platform/config/app-config.js';
import { loadCertificates } from '#src/platform/config/certificates.js';
import { planListeners } from '#src/platform/listeners/listener-plan.js';
import { listenerLine, markerToBaseUrl } from '#src/platform/listeners/base-url.js';
import { ListenerRouting } from '#src/platform/listeners/listener-routing.js';
import { createAppLogger, flushLogs, PinoLoggerService } from '#src/platform/logging/app-logger.js';
import { requestIdFor } from '#src/platform/logging/request-id.js';
import { installRequestObserver } from '#src/platform/logging/request-observer.js';
import { HttpMetrics } from '#src/platform/metrics/http-metrics.js';
import { mountConsole } from '#src/operator/console/console.js';
import { mountOpenApi } from '#src/app/openapi/swagger-ui.js';

/** A started server. */
export interface RunningServer {
  app: NestFastifyApplication;
  /** Stops accepting, finishes in-flight requests, closes the database, flushes the log. */
  close(): Promise<void>;
}

/** Options for tests and embedding. */
export interface StartOptions {
  /** Replaces the system clock (tests fix time). */
  clock?: Clock;
  /**
   * Levels to log instead of `LOG_LEVEL` (`false`: none), for Nest's messages and the request
   * lines alike; or a Nest logger of its own (request lines then follow `LOG_LEVEL`).
   */
  logger?: LoggerService | LogLevel[] | false;
  /** Where the JSON log lines go (default: standard output); tests pass a stream to read them. */
  logDestination?: DestinationStream;
}

/**
 * Builds the application and opens one listener per distinct host:port of the component
 * base URLs, serving TLS on `https://` ones. Migrations run before the first request is accepted.
 * @throws ConfigError naming the variable of a certificate or key file that cannot be used.
 */
export async function startServer(config: AppConfig, options: StartOptions = {}): Promise<RunningServer> {
  const ready = loadCertificates(prepareDataDir(config));
  const listeners = planListeners(ready.urls, ready.certificates);
  const routing = new ListenerRouting(listeners);
  const logger = createAppLogger(
    Array.isArray(options.logger) || options.logger === false ? options.logger : ready.logLevels,
    options.logDestination,
  );
  const { serverFactory, routerOptions } = routing.fastifyOptions();
  const adapter = new FastifyAdapter({
    serverFactory,
    // fastify takes a hop count too; its option type omits it.
    trustProxy: ready.trustProxy as boolean | string,
    bodyLimit: DEVICE_BODY_LIMIT_BYTES,
    routerOptions: { ...routerOptions, ignoreTrailingSlash: true, maxParamLength: PATH_PARAM_MAX_LENGTH },
    frameworkErrors: answerFrameworkError,
    // A request that arrives on an open keep-alive connection while closing is still served (the
    // database closes after the listeners), rather than answered with fastify's own 503 body.
    return503OnClosing: false,
    genReqId: requestIdFor,
  });
  const builder = NestFactory.create<NestFastifyApplication>(AppModule.forRoot(ready, options.clock), adapter, {
    bodyParser: false,
    logger:
      options.logger === undefined || Array.isArray(options.logger)
        ? new PinoLoggerService(logger, markerToBaseUrl(ready.urls))
        : options.logger,
    abortOnError: false,
  });
  const app = await builder;
  const fastify = app.getHttpAdapter().getInstance();
  installJsonBodyParser(fastify);
  installStreamBodyParser(fastify);
  routing.install(fastify);
  installBodySchemas(fastify);
  if (ready.routeShortcuts) installRouteShortcuts(fastify, (type) => app.get(type, { strict: false }));
  installRequestObserver(fastify, {
    logger,
    metrics: app.get(HttpMetrics),
    componentOf: (raw, path) => routing.componentFor(raw, path),
  });
  mountOpenApi(app, ready);
  mountConsole(app, ready);
  const first = listeners[0];
  try {
    await app.listen(first.port, first.host);
    await routing.listenOthers();
  } catch (error) {
    // A port in use or not allowed: nothing stays open (listeners already bound, the database).
    await app.close();
    throw error;
  }
  for (const listener of listeners) new Logger('Listeners').log({ ...listenerLine(listener, ready.urls), listener: listener.key });
  return {
    app,
    close: async () => {
      try {
        await app.close();
      } finally {
        await flushLogs(logger);
      }
    },
  };
}
