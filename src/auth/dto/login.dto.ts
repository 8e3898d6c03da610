import { Transform } from 'class-transformer';
import { IsString, Length, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { printableAscii, registerBodyShortcut } from '#src/common/validation.pipe.js';

/** Largest accepted timestamp: Number.MAX_SAFE_INTEGER has 16 digits. */
const TIMESTAMP_DIGITS = /^\d{1,16}$/;

@ValidatorConstraint({ name: 'unixTimestamp' })
class UnixTimestamp implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && TIMESTAMP_DIGITS.test(value) && Number.isSafeInteger(Number(value));
  }
  defaultMessage(): string {
    return 'timestamp must be a non-negative whole number of seconds (Unix epoch)';
  }
}

/**
 * Login request (INTERFACE.md "Login request", CONTRACT.md §4).
 * `timestamp` arrives as a JSON integer or a string of decimal digits; it is kept as the digit
 * text, which is what the device signed. Floats, negatives and other types are 400.
 */
export class LoginDto {
  /** Device key from the operator dashboard. */
  @IsString({ message: 'device_key must be a string' })
  @Length(1, 128, { message: 'device_key must be 1 to 128 characters' })
  device_key: string;

  /** Unix epoch seconds, as the decimal digits the device signed. */
  @Transform(({ obj }: { obj: Record<string, unknown> }) => {
    const raw = obj['timestamp'];
    return typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : typeof raw === 'string' ? raw : null;
  })
  @Validate(UnixTimestamp)
  timestamp: string;

  /** `hex(HMAC-SHA256(customer key, timestamp + device key))`, either case. */
  @IsString({ message: 'device_signature must be a string' })
  @Length(1, 256, { message: 'device_signature must be 1 to 256 characters' })
  device_signature: string;
}

// What devices send: printable ASCII key and signature, the timestamp as a JSON integer or digits.
registerBodyShortcut(LoginDto, (body) => {
  const { device_key: key, timestamp: raw, device_signature: signature } = body;
  const timestamp = typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : raw;
  if (!printableAscii(key, 1, 128) || !printableAscii(signature, 1, 256)) return undefined;
  if (typeof timestamp !== 'string' || !TIMESTAMP_DIGITS.test(timestamp) || !Number.isSafeInteger(Number(timestamp))) return undefined;
  return Object.assign(new LoginDto(), { device_key: key, timestamp, device_signature: signature });
});

/** Login response (INTERFACE.md "Login response"). */
export interface LoginResponse {
  /** JWT (HS256); send it as `X-Access-Token` on every other request. */
  token: string;
}
