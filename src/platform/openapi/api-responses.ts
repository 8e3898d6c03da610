import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiResponse, type HeadersObject } from '@nestjs/swagger';
import { MessageResponse } from '#src/platform/common/dto/message.dto.js';
import { ErrorMessages } from '#src/platform/http/http-error.filter.js';

/** Names of the security schemes in the documents (`components.securitySchemes`). */
export const SecuritySchemes = {
  /** Device JWT in the `X-Access-Token` header (docs/device-interface.md "Authentication"). */
  deviceToken: 'deviceToken',
  /** The same device JWT as `Authorization: Bearer` (docs/decisions.md §4). */
  deviceBearer: 'deviceBearer',
  /** Operator token as `Authorization: Bearer` (docs/decisions.md §9). */
  operatorToken: 'operatorToken',
  /** The console's session cookie (`POST /session`), as browsers send it. */
  operatorSession: 'operatorSession',
} as const;

/**
 * Keys for the `examples` map of a response, from the texts: `Device does't exist!` →
 * `device-does-t-exist`, at most 40 characters, numbered when two would clash.
 */
function exampleKeys(messages: readonly string[]): string[] {
  const used = new Set<string>();
  return messages.map((message) => {
    const slug = exampleKey(message);
    let key = slug;
    for (let n = 2; used.has(key); n++) key = `${slug}-${n}`;
    used.add(key);
    return key;
  });
}

/** The `examples` key of one text: `Device does't exist!` → `device-does-t-exist`, at most 40 characters. */
export function exampleKey(message: string): string {
  return (
    message
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 40)
      .replace(/^-+|-+$/g, '') || 'message'
  );
}

/**
 * Documents an answer whose body is a message object (`{"message": ...}`) with the exact texts it
 * can carry: one text becomes the `example`, several become named `examples`.
 * @param status HTTP status.
 * @param description when this answer is given.
 * @param messages the exact `message` texts (docs/decisions.md).
 * @param headers response headers of this answer.
 */
export function ApiMessageResponse(
  status: number,
  description: string,
  messages: string | readonly [string, ...string[]],
  headers?: HeadersObject,
): MethodDecorator & ClassDecorator {
  const texts = typeof messages === 'string' ? [messages] : messages;
  const common = { status, description, type: MessageResponse, ...(headers ? { headers } : {}) };
  if (texts.length === 1) return ApiResponse({ ...common, example: { message: texts[0] } });
  return ApiResponse({
    ...common,
    examples: Object.fromEntries(exampleKeys(texts).map((key, i) => [key, { summary: texts[i], value: { message: texts[i] } }])),
  });
}

/**
 * An operator endpoint: the operator token as `Authorization: Bearer` (docs/decisions.md §9), or the
 * console's session cookie.
 * @param invalidTokenMessage the exact 401 text of the operator token guard.
 * @param sessionEndedMessage the exact 401 text for a session cookie whose session has ended.
 */
export function ApiOperatorAuth(invalidTokenMessage: string, sessionEndedMessage: string): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiBearerAuth(SecuritySchemes.operatorToken),
    ApiCookieAuth(SecuritySchemes.operatorSession),
    ApiMessageResponse(401, 'The operator token is missing or wrong, or the session cookie names a session that has ended.', [
      invalidTokenMessage,
      sessionEndedMessage,
    ]),
  );
}

/**
 * The framework-level errors of an endpoint with a JSON body (docs/decisions.md §3): 400 for malformed
 * JSON or a missing/mistyped/out-of-bounds field (the message names the field), 413 over the
 * 16 KiB device body limit, 415 when the body is not `application/json`.
 * @param fieldMessages example 400 texts of this body's fields.
 * @param headers400 headers of the 400 answer (the login rate-limit headers).
 */
export function ApiJsonBodyErrors(fieldMessages: readonly string[], headers400?: HeadersObject): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiMessageResponse(
      400,
      'Malformed JSON, a missing body, or a missing, mistyped or out-of-bounds field (the message names the field).',
      [ErrorMessages.malformedJson, ...fieldMessages],
      headers400,
    ),
    ApiMessageResponse(413, 'The body is over the device body limit (16 KiB).', ErrorMessages.tooLarge),
    ApiMessageResponse(415, 'The body is not `application/json`.', ErrorMessages.unsupportedMediaType),
  );
}

/** 500 `Error on server`: any unexpected failure; the cause is logged, never returned (docs/decisions.md §3). */
export function ApiServerError(): MethodDecorator & ClassDecorator {
  return ApiMessageResponse(500, 'Unexpected failure; the cause is in the server log.', ErrorMessages.serverError);
}
