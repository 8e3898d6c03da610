import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { LoginRateLimitStorage, type LoginRateRecord } from './login-rate-limit.storage.js';

/**
 * How one kind of credential is limited (docs/decisions.md §4, "Failed authentication").
 * `scope` keeps its counters apart from the other kinds'.
 */
export interface FailureRule {
  /** Counter prefix: `device-login`, `operator-token`, `console-sign-in`, `ddi-token`, … */
  scope: string;
  /** Failures allowed per window per client address and subject. */
  limit: number;
  /** The window, seconds. */
  windowSeconds: number;
  /**
   * The subject (what the credential names: a username) belongs to one holder and its secret can
   * be guessed (a password): once the subject has used up its failures from an address, that
   * address is refused before its attempts with the subject are checked. For subjects shared by
   * many holders (a device key) or secrets no one guesses (random tokens), leave it unset.
   */
  lockSubject?: boolean;
  /** Failures allowed per window for the subject from every address together (a guess spread over addresses); none when unset. */
  subjectLimit?: number;
}

/**
 * A credential presented: from which client address, naming which subject: what the credential
 * names (a device key text, a username), or for a bare secret (a bearer token) the kind of secret,
 * so that its failures count per address.
 */
export interface AuthAttempt {
  address: string;
  subject: string;
}

/** Where an address and subject stand after an attempt: failures left and when the window resets. */
export interface FailureStanding {
  limit: number;
  /** Failures the subject may still have from this address in the window. */
  remaining: number;
  /** Epoch seconds at which the window resets. */
  resetsAt: number;
  /** `null` while the attempt may go on; else the seconds until it may be tried again (answer 429 with `Retry-After`). */
  retryAfter: number | null;
}

/**
 * The one rule for failed authentication, used by device logins, operator tokens, console sign-in
 * and every device protocol (docs/decisions.md §4): failures are counted per client address and
 * subject, in fixed windows shared by every instance (the database, or Redis with `REDIS_URL`);
 * once a pair is over its limit its failed attempts are answered 429 with `Retry-After` instead of
 * 401, until the window ends. A valid credential is never refused because of failures: only a
 * subject with {@link FailureRule.lockSubject} (a password's username) is refused, from the address
 * that used up its failures, before it is checked.
 */
@Injectable()
export class FailedAuthentication {
  constructor(private readonly counters: LoginRateLimitStorage) {}

  /**
   * Before the credential is checked: where the subject stands from this address, without counting.
   * `retryAfter` is set only for a locked subject ({@link FailureRule.lockSubject}) over its limit.
   */
  async before(rule: FailureRule, attempt: AuthAttempt): Promise<FailureStanding> {
    const window = rule.windowSeconds * 1000;
    const pair = await this.counters.peek(this.key(rule, 'pair', attempt), window, rule.limit);
    let retryAfter = rule.lockSubject && pair.totalHits >= rule.limit ? pair.timeToExpire : null;
    if (rule.lockSubject && rule.subjectLimit !== undefined) {
      const subject = await this.counters.peek(this.key(rule, 'subject', attempt), window, rule.subjectLimit);
      if (subject.totalHits >= rule.subjectLimit) retryAfter = Math.max(retryAfter ?? 0, subject.timeToExpire);
    }
    return standing(rule, pair, retryAfter);
  }

  /**
   * After the credential failed its check: counts the failure of the address and subject (and of
   * the subject from every address, with {@link FailureRule.subjectLimit}). `retryAfter` is set
   * when the pair (or the subject) is now over its limit.
   */
  async failed(rule: FailureRule, attempt: AuthAttempt): Promise<FailureStanding> {
    const window = rule.windowSeconds * 1000;
    const [pair, subject] = await Promise.all([
      this.counters.increment(this.key(rule, 'pair', attempt), window, rule.limit),
      rule.subjectLimit === undefined
        ? Promise.resolve(null)
        : this.counters.increment(this.key(rule, 'subject', attempt), window, rule.subjectLimit),
    ]);
    const over = [pair, subject].filter((record): record is LoginRateRecord => record !== null && record.isBlocked);
    return standing(rule, pair, over.length === 0 ? null : Math.max(...over.map((record) => record.timeToBlockExpire)));
  }

  /** The counter of one part of an attempt: hashed, so subjects of any length fit the store and none is stored in clear. */
  private key(rule: FailureRule, part: 'pair' | 'subject', attempt: AuthAttempt): string {
    const text = part === 'pair' ? `${attempt.address}\0${attempt.subject}` : attempt.subject;
    return `${rule.scope}:${part}:${createHash('sha256').update(text).digest('base64url')}`;
  }
}

function standing(rule: FailureRule, pair: LoginRateRecord, retryAfter: number | null): FailureStanding {
  return { limit: rule.limit, remaining: Math.max(0, rule.limit - pair.totalHits), resetsAt: pair.resetsAt, retryAfter };
}
