import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Level, type LevelWithSilent, type Logger } from 'pino';
import type { LogLevel } from '#src/platform/config/app-config.js';

/** Nest's log levels as pino's (`log` is `info`, `verbose` is `trace`). */
const PINO_LEVELS: Record<LogLevel, Level> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/**
 * Secret-bearing fields, censored should any object holding them ever be logged. Request lines
 * never carry headers, bodies or query strings in the first place; this is the second line.
 */
const REDACTED_PATHS = [
  'headers.authorization',
  'headers["x-access-token"]',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers["x-access-token"]',
  'req.headers.cookie',
  '*.device_signature',
  '*.token',
  '*.customer_key',
  '*.customerKey',
  '*.device_key',
  '*.deviceKey',
  '*.jwtSecret',
  '*.ledgerSigningKey',
  'device_signature',
  'token',
  'customer_key',
  'customerKey',
  'jwtSecret',
  'ledgerSigningKey',
];

/** The pino level that prints exactly the given Nest levels' least severe and everything above it. */
export function pinoLevel(levels: readonly LogLevel[] | false): LevelWithSilent {
  if (levels === false || levels.length === 0) return 'silent';
  const order: LogLevel[] = ['verbose', 'debug', 'log', 'warn', 'error', 'fatal'];
  const least = order.find((level) => levels.includes(level)) ?? 'fatal';
  return PINO_LEVELS[least];
}

/**
 * The process's JSON logger: one line per entry with `level` (label), `time` (ISO 8601),
 * `msg`, and the fields a message object carries (a line about a request carries its `reqId`).
 * @param destination defaults to standard output, written asynchronously (flushed on close and exit).
 */
export function createAppLogger(levels: readonly LogLevel[] | false, destination?: DestinationStream): Logger {
  return pino(
    {
      level: pinoLevel(levels),
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** Writes whatever the logger still buffers; resolves once written. */
export function flushLogs(logger: Logger): Promise<void> {
  return new Promise((done) => logger.flush(() => done()));
}

/**
 * Contexts of Nest's start-up detail: each module wired (`InstanceLoader`), each controller and
 * route mapped (`RoutesResolver`, `RouterExplorer`). Logged at debug, not at Nest's `log`.
 */
const START_UP_DETAIL = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/**
 * Nest's logger over pino, so `new Logger('X').log(...)` becomes a JSON line with
 * `"context":"X"`. Nest hands the context as the last argument and, for errors, a stack before it.
 * Nest's start-up detail ({@link START_UP_DETAIL}) is written at debug, its text through `rewrite`.
 */
export class PinoLoggerService implements LoggerService {
  /**
   * @param rewrite applied to the text of Nest's start-up detail: the server passes one that writes
   *   each mapped route under its component's base URL (`listeners/base-url.ts`).
   */
  constructor(
    private readonly logger: Logger,
    private readonly rewrite: (text: string) => string = (text) => text,
  ) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    const rest = params.filter((param) => param !== undefined);
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    if (context !== undefined && START_UP_DETAIL.has(context)) {
      if (level === 'info') level = 'debug';
      if (typeof message === 'string' && this.logger.isLevelEnabled(level)) message = this.rewrite(message);
    }
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = context === undefined ? {} : { context };
    if (level === 'error' && typeof rest[0] === 'string') fields['stack'] = rest[0];
    if (message instanceof Error) {
      fields['err'] = message;
      this.logger[level](fields, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ ...fields, ...message });
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
