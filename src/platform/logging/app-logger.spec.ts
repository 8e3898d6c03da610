import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@nestjs/common';
import { createAppLogger, pinoLevel, PinoLoggerService } from './app-logger.js';

function capture(levels: Parameters<typeof createAppLogger>[0]) {
  const lines: Record<string, unknown>[] = [];
  const logger = createAppLogger(levels, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe(pinoLevel.name, () => {
  it('maps the least severe Nest level to pino’s', () => {
    assert.equal(pinoLevel(['fatal', 'error', 'warn', 'log']), 'info');
    assert.equal(pinoLevel(['fatal', 'error', 'warn', 'log', 'debug', 'verbose']), 'trace');
    assert.equal(pinoLevel(['fatal', 'error']), 'error');
    assert.equal(pinoLevel(['fatal']), 'fatal');
    assert.equal(pinoLevel(false), 'silent');
    assert.equal(pinoLevel([]), 'silent');
  });
});

describe(PinoLoggerService.name, () => {
  it('writes Nest messages as JSON lines with level label, context and time', () => {
    const { logger, lines } = capture(['fatal', 'error', 'warn', 'log']);
    const nest = new PinoLoggerService(logger);
    nest.log('listening', 'Listeners');
    nest.error('boom', 'Error: boom\n    at x', 'HttpError');
    nest.debug('not printed at LOG_LEVEL=log', 'X');
    assert.equal(lines.length, 2);
    assert.deepEqual(
      { level: lines[0].level, context: lines[0].context, msg: lines[0].msg },
      { level: 'info', context: 'Listeners', msg: 'listening' },
    );
    assert.match(String(lines[0].time), /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(
      { level: lines[1].level, context: lines[1].context, stack: lines[1].stack },
      { level: 'error', context: 'HttpError', stack: 'Error: boom\n    at x' },
    );
  });

  it('serves `new Logger(context)` once Nest uses it, keeping the fields of a message object (a request id)', () => {
    const { logger, lines } = capture(['fatal', 'error', 'warn', 'log']);
    Logger.overrideLogger(new PinoLoggerService(logger));
    try {
      new Logger('Login').warn({ msg: 'login refused', reqId: 'req-1' });
      new Logger('Outside').error('no request');
    } finally {
      Logger.overrideLogger(false);
    }
    assert.deepEqual(
      lines.map((l) => [l.level, l.context, l.reqId, l.msg]),
      [
        ['warn', 'Login', 'req-1', 'login refused'],
        ['error', 'Outside', undefined, 'no request'],
      ],
    );
  });

  it('censors secret fields of logged objects', () => {
    const { logger, lines } = capture(['log']);
    new PinoLoggerService(logger).log({ msg: 'x', token: 'jwt', body: { device_signature: 'sig', customer_key: 'ck' } });
    const text = JSON.stringify(lines);
    for (const secret of ['jwt', 'sig', 'ck']) assert.ok(!text.includes(`"${secret}"`), `${secret} in ${text}`);
  });
});
