import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';

/**
 * How a login ended (docs/decisions.md §4). Every refusal answers the same 401 to the device; the
 * metric, like the log, tells them apart. `rate_limited` is the 429; a malformed body (400)
 * never reaches the login rules and shows only in `http_requests_total`.
 */
const LOGIN_OUTCOMES = ['success', 'unknown_key', 'bad_signature', 'revoked_key', 'stale_timestamp', 'replay', 'rate_limited'] as const;
export type LoginOutcome = (typeof LOGIN_OUTCOMES)[number];

/** `firmledger_logins_total{outcome}`; every outcome starts at 0 so rates work from the first scrape. */
@Injectable()
export class LoginMetrics {
  private readonly logins: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.logins = new Counter({
      name: 'firmledger_logins_total',
      help: 'Device logins by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of LOGIN_OUTCOMES) this.logins.inc({ outcome }, 0);
  }

  record(outcome: LoginOutcome): void {
    this.logins.inc({ outcome });
  }
}
