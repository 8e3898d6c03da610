import { Inject, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { Clock } from '#src/platform/common/clock.js';
import { RetryLaterException } from '#src/platform/http/http-error.filter.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { APP_CONFIG } from '#src/platform/config/config.module.js';
import { UnitOfWork } from '#src/platform/database/unit-of-work.js';
import { OperatorAccountRepository } from './operator-account.repository.js';
import type { OperatorPrincipal } from './operator-principal.js';
import type { OperatorUser } from './operator-user.entity.js';
import { isUsername } from './operator-user.service.js';
import { verifyDecoy, verifyPassword } from './password.js';
import { FailedAuthentication, type FailureRule } from './failed-authentication.js';

/** Console sign-ins failed per client address and username per window. */
export const SIGN_IN_LIMIT_PER_CLIENT = 10;
/** Console sign-ins failed per username per window, from all addresses together. */
export const SIGN_IN_LIMIT_PER_ACCOUNT = 50;
/** The sign-in limit's window, seconds. */
export const SIGN_IN_WINDOW_SECONDS = 900;

/** Console sign-in under the one rule for failed authentication (docs/decisions.md §4): a password can be guessed, so the username is locked. */
const SIGN_IN_RULE: FailureRule = {
  scope: 'console-sign-in',
  limit: SIGN_IN_LIMIT_PER_CLIENT,
  windowSeconds: SIGN_IN_WINDOW_SECONDS,
  lockSubject: true,
  subjectLimit: SIGN_IN_LIMIT_PER_ACCOUNT,
};

/** 401 text of every refused sign-in: unknown username, wrong password, disabled account alike. */
export const SIGN_IN_REFUSED = 'Wrong username or password';
/** 401 text of a request whose session cookie names a session that has ended. */
export const SESSION_ENDED = 'Your session has ended: sign in again';
/** 429 text of a throttled sign-in. */
export const SIGN_IN_THROTTLED = 'Too many sign-in attempts: try again later';

/** A throttled sign-in: 429, with the seconds until the next attempt may succeed (`Retry-After`). */
export class SignInThrottledException extends RetryLaterException {
  constructor(retryAfterSeconds: number) {
    super(429, SIGN_IN_THROTTLED, retryAfterSeconds);
  }
}

/** A new session: the token for the cookie (shown to nobody else, stored as its digest) and its bounds. */
export interface NewSession {
  token: string;
  principal: OperatorPrincipal;
  /** Absolute end, epoch ms. */
  expiresAt: number;
}

/** A live session as the console reads it. */
export interface SessionView {
  principal: OperatorPrincipal;
  /** Absolute end, epoch ms. */
  expiresAt: number;
}

/** Sign-ins between two clean-ups of ended sessions. */
const PRUNE_EVERY = 100;

/**
 * Console sessions: sign in with a username and password, a random token in an `HttpOnly`
 * cookie, stored only as its SHA-256. Each request with the cookie reads the session and its
 * account, so a disabled account, a changed password or a sign-out ends it at once; it also ends
 * after `OPERATOR_SESSION_IDLE_SECONDS` without a request and `OPERATOR_SESSION_MAX_SECONDS` after
 * sign-in. The last-seen time is written at most once a minute (a thirtieth of the idle time when
 * that is shorter), so the idle end may come that much early.
 */
@Injectable()
export class OperatorSessionService {
  private readonly logger = new Logger('OperatorSession');
  private readonly idleMs: number;
  private readonly maxMs: number;
  private readonly touchEveryMs: number;
  private signIns = 0;

  constructor(
    private readonly accounts: OperatorAccountRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly failures: FailedAuthentication,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.idleMs = config.operatorSessionIdleSeconds * 1000;
    this.maxMs = config.operatorSessionMaxSeconds * 1000;
    this.touchEveryMs = Math.min(60_000, this.idleMs / 30);
  }

  /** Seconds a session lasts at most: the cookie's `Max-Age`. */
  get maxSeconds(): number {
    return this.maxMs / 1000;
  }

  /**
   * Signs an operator in. Failed sign-ins are limited by the one rule for failed authentication
   * ({@link SIGN_IN_RULE}): a username that used up its failures from an address is refused there
   * before its password is checked (a password can be guessed), and one that used up its failures
   * from every address together is refused everywhere, until the window ends.
   * @param clientIp the client's address (fastify's `request.ip`).
   * @throws SignInThrottledException (429) as above, or for a failure over the limit;
   *   UnauthorizedException `Wrong username or password` for an unknown username, a wrong password
   *   or a disabled account.
   */
  async signIn(username: string, password: string, clientIp: string): Promise<NewSession> {
    const attempt = { address: clientIp, subject: username.toLowerCase() };
    const before = await this.failures.before(SIGN_IN_RULE, attempt);
    if (before.retryAfter !== null) {
      this.logger.warn(`sign-in of "${username}" from ${clientIp} throttled`);
      throw new SignInThrottledException(before.retryAfter);
    }
    // A name no account can have is unknown without a query (it may hold text no column can store).
    const user = isUsername(username) ? await this.accounts.findUser(username) : null;
    const usable = user !== null && user.disabledAt === null;
    const matches = usable ? await verifyPassword(user.passwordHash, password) : await verifyDecoy(password);
    if (!usable || !matches) {
      const reason = user === null ? 'unknown username' : !usable ? 'account disabled' : 'wrong password';
      this.logger.warn(`sign-in of "${username}" from ${clientIp} refused: ${reason}`);
      const after = await this.failures.failed(SIGN_IN_RULE, attempt);
      if (after.retryAfter !== null) throw new SignInThrottledException(after.retryAfter);
      throw new UnauthorizedException(SIGN_IN_REFUSED);
    }
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const expiresAt = now + this.maxMs;
    await this.unitOfWork.transaction(async (manager) => {
      if (++this.signIns % PRUNE_EVERY === 0) await this.accounts.deleteEnded(manager, now, now - this.idleMs);
      await this.accounts.insertSession(manager, { id: digest(token), userId: user.id, createdAt: now, lastSeenAt: now, expiresAt });
    });
    this.logger.log(`operator "${username}" signed in from ${clientIp}`);
    return { token, principal: userPrincipal(user), expiresAt };
  }

  /**
   * The live session a cookie's token names, its last-seen time brought up to date; `null` when
   * there is none: unknown, signed out, idle too long, past its end, or its account disabled (an
   * ended session is deleted).
   */
  async resolve(token: string): Promise<SessionView | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const id = digest(token);
    const found = await this.accounts.findSession(id);
    if (!found) return null;
    const { session, user } = found;
    const now = this.clock.now();
    if (user.disabledAt !== null || now >= session.expiresAt || now - session.lastSeenAt >= this.idleMs) {
      await this.unitOfWork.write((manager) => this.accounts.deleteSession(manager, id));
      return null;
    }
    if (now - session.lastSeenAt >= this.touchEveryMs)
      await this.unitOfWork.write((manager) => this.accounts.touchSession(manager, id, now));
    return { principal: userPrincipal(user), expiresAt: session.expiresAt };
  }

  /** Ends the session a cookie's token names, if any. */
  async signOut(token: string): Promise<void> {
    const found = /^[A-Za-z0-9_-]{43}$/.test(token) ? await this.accounts.findSession(digest(token)) : null;
    if (!found) return;
    await this.unitOfWork.write((manager) => this.accounts.deleteSession(manager, found.session.id));
    this.logger.log(`operator "${found.user.username}" signed out`);
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function userPrincipal(user: OperatorUser): OperatorPrincipal {
  return { kind: 'user', id: user.id, name: user.username, role: user.role };
}
