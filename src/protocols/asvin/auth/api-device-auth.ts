import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import { ApiMessageResponse, SecuritySchemes } from '#src/platform/openapi/api-responses.js';
import { INVALID_TOKEN } from './device-token.guard.js';

/**
 * A device endpoint: the JWT from login in `X-Access-Token` (or `Authorization: Bearer`);
 * anything wrong with it is 401 `JWT is not valid` (docs/decisions.md §3, §4). Class or method.
 */
export function ApiDeviceAuth(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiSecurity(SecuritySchemes.deviceToken),
    ApiBearerAuth(SecuritySchemes.deviceBearer),
    ApiMessageResponse(401, 'The device token is missing, malformed, expired, badly signed or its key is revoked.', INVALID_TOKEN),
  );
}
