import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { SessionResponse, SignInDto, SignInMessages, sessionResponse } from '#src/operator/dto/session.dto.js';
import { OperatorSessionService, SIGN_IN_REFUSED, SIGN_IN_THROTTLED } from '#src/domain/access/operator-session.service.js';
import { CROSS_SITE_REFUSED, refuseCrossSite } from './same-origin.js';
import { SessionCookies } from './session-cookie.js';

/**
 * Console sessions under `OPERATOR_URL`: sign in with an operator account, see who is signed in,
 * sign out. The session lives in an `HttpOnly`, `SameSite=Strict` cookie (`Secure` over TLS); the
 * operator API accepts it as it accepts an operator token. Changes of state are POSTs only, and
 * refused when a browser says another site sent them.
 */
@ApiTags('Session')
@ApiServerError()
@Controller('session')
export class SessionController {
  constructor(
    private readonly sessions: OperatorSessionService,
    private readonly cookies: SessionCookies,
  ) {}

  /** `GET /session` → 200 `{operator}`: the operator the session cookie signs in, or `null` (never 401). */
  @Get()
  @ApiOperation({
    summary: 'Who the session cookie signs in',
    description: 'Answers 200 with `operator: null` when there is no live session (none, signed out, idle too long, ended, disabled).',
  })
  @ApiOkResponse({ type: SessionResponse, description: 'The signed-in operator, or null.' })
  async current(@Req() request: FastifyRequest): Promise<SessionResponse> {
    const token = this.cookies.read(request);
    return sessionResponse(token === undefined ? null : await this.sessions.resolve(token));
  }

  /**
   * `POST /session` `{username, password}` → 200 `{operator}` and the session cookie; 400 naming
   * the field; 401 `Wrong username or password` (unknown, wrong or disabled alike); 403
   * cross-site; 429 with `Retry-After` over the sign-in throttle. A session the request's cookie
   * named before is ended.
   */
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in: sets the session cookie',
    description:
      'Sets `firmledger_session` (HttpOnly, SameSite=Strict, Secure over TLS). Sign-ins are throttled per client address and ' +
      'username, and per username.',
  })
  @ApiOkResponse({ type: SessionResponse, description: 'Signed in; the answer carries `Set-Cookie`.' })
  @ApiJsonBodyErrors([SignInMessages.usernameRequired, SignInMessages.username, SignInMessages.password])
  @ApiMessageResponse(401, 'Unknown username, wrong password or disabled account (one answer for all).', SIGN_IN_REFUSED)
  @ApiMessageResponse(403, 'A browser says another site sent the request.', CROSS_SITE_REFUSED)
  @ApiMessageResponse(429, 'Too many sign-ins for this username (from this address, or from all).', SIGN_IN_THROTTLED, {
    'Retry-After': { description: 'Seconds until a sign-in may be tried again.', schema: { type: 'integer', example: 840 } },
  })
  async signIn(
    @Body() body: SignInDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionResponse> {
    refuseCrossSite(request);
    const previous = this.cookies.read(request);
    const session = await this.sessions.signIn(body.username, body.password, request.ip);
    if (previous !== undefined) await this.sessions.signOut(previous);
    this.cookies.set(request, reply, session.token, this.sessions.maxSeconds);
    return sessionResponse(session);
  }

  /** `POST /session/sign-out` → 200 `{operator: null}`: ends the cookie's session (if any) and clears the cookie; 403 cross-site. */
  @Post('sign-out')
  @HttpCode(200)
  @ApiOperation({ summary: 'Sign out: ends the session and clears its cookie' })
  @ApiOkResponse({ type: SessionResponse, description: 'Signed out (also when there was no session).' })
  @ApiMessageResponse(403, 'A browser says another site sent the request.', CROSS_SITE_REFUSED)
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionResponse> {
    refuseCrossSite(request);
    const token = this.cookies.read(request);
    if (token !== undefined) await this.sessions.signOut(token);
    this.cookies.clear(request, reply);
    return sessionResponse(null);
  }
}
