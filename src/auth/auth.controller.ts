import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, type HeadersObject } from '@nestjs/swagger';
import { ErrorMessages } from '#src/common/http-error.filter.js';
import { RequestId } from '#src/logging/request-id.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiServerError } from '#src/openapi/api-responses.js';
import { AuthService, INVALID_CREDENTIALS } from './auth.service.js';
import { LoginDto, LoginFieldMessages, LoginResponse } from './dto/login.dto.js';
import { LoginThrottlerGuard } from './login-throttler.guard.js';

/** The rate-limit headers of every login answer (200, 400, 401, 429; CONTRACT.md §4). */
const RATE_LIMIT_HEADERS: HeadersObject = {
  'X-RateLimit-Limit': {
    description: 'Logins allowed per client IP and device key per window (LOGIN_RATE_LIMIT).',
    schema: { type: 'integer', example: 10 },
  },
  'X-RateLimit-Remaining': {
    description: 'Logins left in the current window.',
    schema: { type: 'integer', example: 9 },
  },
  'X-RateLimit-Reset': {
    description: 'Unix epoch time, seconds, at which the window resets.',
    schema: { type: 'integer', example: 1763700060 },
  },
};

/** The authentication component (INTERFACE.md), mounted at `AUTH_URL`. */
@ApiTags('Authentication')
@ApiServerError()
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  /**
   * `POST {auth_url}/auth/login` → 200 `{token}`; 400 bad body; 401 `Invalid credentials`;
   * 429 `Too many requests in this time frame`. Rate-limit headers on every answer (CONTRACT.md §4).
   */
  @Post('login')
  @HttpCode(200)
  @UseGuards(LoginThrottlerGuard)
  @ApiOperation({
    summary: 'Log a device in: device key, timestamp and signature for a JWT',
    description:
      'No token is needed. A `(device_key, timestamp)` pair is accepted once. Unknown or revoked device key, wrong ' +
      'signature, stale timestamp and replay all answer the same 401 (CONTRACT.md §4). Every answer carries the ' +
      'rate-limit headers.',
  })
  @ApiOkResponse({ description: 'Logged in: the device JWT.', type: LoginResponse, headers: RATE_LIMIT_HEADERS })
  @ApiJsonBodyErrors([LoginFieldMessages.timestamp, LoginFieldMessages.deviceKey], RATE_LIMIT_HEADERS)
  @ApiMessageResponse(
    401,
    'Unknown or revoked device key, wrong signature, timestamp outside the skew window, or a replayed timestamp.',
    INVALID_CREDENTIALS,
    RATE_LIMIT_HEADERS,
  )
  @ApiMessageResponse(429, 'Over LOGIN_RATE_LIMIT logins per client IP and device key in the window.', ErrorMessages.tooManyRequests, {
    ...RATE_LIMIT_HEADERS,
    'Retry-After': { description: 'Seconds until logins are accepted again.', schema: { type: 'integer', example: 42 } },
  })
  login(@Body() body: LoginDto, @RequestId() requestId: string): Promise<LoginResponse> {
    return this.auth.login(body, requestId);
  }
}
