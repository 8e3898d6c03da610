import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Length, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { jsonNumberLiteral } from '#src/platform/http/json-body.js';
import { printableAscii, registerBodyShortcut } from '#src/platform/http/validation.pipe.js';

/** Longest `device_key` accepted, characters (the DTO's check and the shortcut's alike). */
const DEVICE_KEY_MAX = 128;

/** Longest `device_signature` accepted, characters (a valid one is 64 hex digits), in the DTO's check and the shortcut's alike. */
const DEVICE_SIGNATURE_MAX = 256;

/** Largest accepted timestamp: Number.MAX_SAFE_INTEGER has 16 digits. */
const TIMESTAMP_DIGITS = /^\d{1,16}$/;

/**
 * The body's timestamp as text: a string as it is; a JSON number when written as digits only, as
 * those digits (`1700000000.0`, `17e8` and `-0` parse to whole numbers but are written as floats
 * or negatives: `null`, so 400 on every engine); anything else `null`.
 */
function timestampText(body: Readonly<Record<string, unknown>>): string | null {
  const raw = body['timestamp'];
  if (typeof raw === 'string') return raw;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0) return null;
  const literal = jsonNumberLiteral(body, 'timestamp');
  return literal === undefined || /^\d+$/.test(literal) ? String(raw) : null;
}

/** Whether a value is the decimal digits of a Unix timestamp up to `Number.MAX_SAFE_INTEGER`. */
function isUnixTimestamp(value: unknown): value is string {
  return typeof value === 'string' && TIMESTAMP_DIGITS.test(value) && Number.isSafeInteger(Number(value));
}

/** 400 texts of the login body's fields (docs/decisions.md §3: the message names the field). */
export const LoginFieldMessages = {
  deviceKey: 'device_key must be a string',
  timestamp: 'timestamp must be a non-negative whole number of seconds (Unix epoch)',
  deviceSignature: 'device_signature must be a string',
} as const;

@ValidatorConstraint({ name: 'unixTimestamp' })
class UnixTimestamp implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isUnixTimestamp(value);
  }
  defaultMessage(): string {
    return LoginFieldMessages.timestamp;
  }
}

/**
 * Login request (docs/device-interface.md "Login request", docs/decisions.md §4).
 * `timestamp` arrives as a JSON integer or a string of decimal digits; it is kept as the digit
 * text, which is what the device signed. Floats (also `1700000000.0`), negatives and other types are 400.
 */
export class LoginDto {
  /** Device key from the operator dashboard. */
  @ApiProperty({
    description: 'Device key from the operator (`firmledger device-key create`).',
    minLength: 1,
    maxLength: DEVICE_KEY_MAX,
    example: '3f8a1c5e9b2d4f60718293a4b5c6d7e8',
  })
  @IsString({ message: LoginFieldMessages.deviceKey })
  @Length(1, DEVICE_KEY_MAX, { message: `device_key must be 1 to ${DEVICE_KEY_MAX} characters` })
  device_key: string;

  /** Unix epoch seconds, as the decimal digits the device signed. */
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    description:
      'Unix epoch time, seconds; accepted within AUTH_MAX_SKEW_SECONDS (default 300) of server time, once per device key. ' +
      'A string of decimal digits is accepted too; the signed text is the digits.',
    example: 1763700000,
  })
  @Transform(({ obj }: { obj: Record<string, unknown> }) => timestampText(obj))
  @Validate(UnixTimestamp)
  timestamp: string;

  /** `hex(HMAC-SHA256(customer key, timestamp + device key))`, either case. */
  @ApiProperty({
    description:
      '`hex(HMAC-SHA256(key = customer key, message = timestamp digits + device key))`, lowercase or uppercase hex. ' +
      'The customer key is the shared secret and is never sent (docs/decisions.md §1).',
    minLength: 1,
    maxLength: DEVICE_SIGNATURE_MAX,
    example: '8f77ddbaf9a2bb5eeafb08bd0eae8546fd6cebbeeba06e43cbe0c31e52ef1258',
  })
  @IsString({ message: LoginFieldMessages.deviceSignature })
  @Length(1, DEVICE_SIGNATURE_MAX, { message: `device_signature must be 1 to ${DEVICE_SIGNATURE_MAX} characters` })
  device_signature: string;
}

// What devices send: printable ASCII key and signature, the timestamp as a JSON integer or digits.
registerBodyShortcut(LoginDto, (body) => {
  const { device_key: key, device_signature: signature } = body;
  const timestamp = timestampText(body);
  if (!printableAscii(key, 1, DEVICE_KEY_MAX) || !printableAscii(signature, 1, DEVICE_SIGNATURE_MAX) || !isUnixTimestamp(timestamp))
    return undefined;
  return Object.assign(new LoginDto(), { device_key: key, timestamp, device_signature: signature });
});

/** Login response (docs/device-interface.md "Login response"). */
export class LoginResponse {
  /** JWT (HS256); send it as `X-Access-Token` on every other request. */
  @ApiProperty({
    description:
      'Device JWT (HS256; claims sub, tid, iat, exp, jti), valid JWT_TTL_SECONDS (default 3600). ' +
      'Send it as `X-Access-Token` (or `Authorization: Bearer`) on every other request.',
    example:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIiwidGlkIjoxLCJpYXQiOjE3NjM3MDAwMDAsImV4cCI6MTc2MzcwMzYwMCwianRpIjoiOWIxZGViNGQtM2I3ZC00YmFkLTliZGQtMmIwZDdiM2RjYjZkIn0.sNZj50mrxayi7nkPSLCFMrwDTmaT3Og-ySsjcIipOjI',
  })
  token: string;
}
