import { Body, Controller, HttpCode, Ip, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, type HeadersObject } from '@nestjs/swagger';
import { ErrorMessages } from '#src/platform/http/http-error.filter.js';
import { RequestId } from '#src/platform/logging/request-id.js';
import { ApiJsonBodyErrors, ApiMessageResponse, ApiServerError } from '#src/platform/openapi/api-responses.js';
import { AuthService, INVALID_CREDENTIALS } from './auth.service.js';
import { LoginDto, LoginFieldMessages, LoginResponse } from '#src/protocols/asvin/auth/dto/login.dto.js';
import { LoginLimitGuard } from './login-limit.js';

/** The rate-limit headers of every login answer (200, 400, 401, 429; docs/decisions.md §4). */
const RATE_LIMIT_HEADERS: HeadersObject = {
  'X-RateLimit-Limit': {
    description: 'Failed logins allowed per client IP and device key per window (LOGIN_RATE_LIMIT).',
    schema: { type: 'integer', example: 10 },
  },
  'X-RateLimit-Remaining': {
    description: 'Failed logins (wrong signature, unknown or revoked key) left in the current window.',
    schema: { type: 'integer', example: 9 },
  },
  'X-RateLimit-Reset': {
    description: 'Unix epoch time, seconds, at which the window resets.',
    schema: { type: 'integer', example: 1763700060 },
  },
};

/** The authentication component (docs/device-interface.md), mounted at `AUTH_URL`. */
@ApiTags('Authentication')
@ApiServerError()
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  /**
   * `POST {auth_url}/auth/login` → 200 `{token}`; 400 bad body; 401 `Invalid credentials`;
   * 429 `Too many requests in this time frame` once the client address and device key used up
   * their failed logins. Rate-limit headers on every answer (docs/decisions.md §4).
   */
  @Post('login')
  @HttpCode(200)
  @UseGuards(LoginLimitGuard)
  @ApiOperation({
    summary: 'Log a device in: device key, timestamp and signature for a JWT',
    description:
      'No token is needed. Devices sharing a device key may send byte-identical logins: each is accepted. For a key ' +
      'created with `single_device`, a `(device_key, timestamp)` pair is accepted once. Unknown or revoked device key, ' +
      'wrong signature, stale timestamp and replay all answer the same 401 (docs/decisions.md §4). Only failed logins ' +
      '(wrong signature, unknown or revoked key) count toward the rate limit of the client IP and device key. Every ' +
      'answer carries the rate-limit headers.',
  })
  @ApiOkResponse({ description: 'Logged in: the device JWT.', type: LoginResponse, headers: RATE_LIMIT_HEADERS })
  @ApiJsonBodyErrors([LoginFieldMessages.timestamp, LoginFieldMessages.deviceKey], RATE_LIMIT_HEADERS)
  @ApiMessageResponse(
    401,
    'Unknown or revoked device key, wrong signature, timestamp outside the skew window, or a replayed timestamp of a single-device key.',
    INVALID_CREDENTIALS,
    RATE_LIMIT_HEADERS,
  )
  @ApiMessageResponse(
    429,
    'LOGIN_RATE_LIMIT failed logins of this client IP and device key in the window: every login of the pair is refused until it ends.',
    ErrorMessages.tooManyRequests,
    {
      ...RATE_LIMIT_HEADERS,
      'Retry-After': { description: 'Seconds until logins are accepted again.', schema: { type: 'integer', example: 42 } },
    },
  )
  login(@Body() body: LoginDto, @Ip() ip: string, @RequestId() requestId: string): Promise<LoginResponse> {
    return this.auth.login(body, { ip, requestId });
  }
}
