import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, Length, Matches, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { canonicalMac, INVALID_MAC, isCanonicalMac } from './mac.js';

@ValidatorConstraint({ name: 'hardwareAddress' })
class HardwareAddress implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isCanonicalMac(value);
  }
  defaultMessage(): string {
    return INVALID_MAC;
  }
}

/** Text without control characters (C0, DEL, C1). */
const NO_CONTROL = /^[^\p{Cc}]*$/u;

/**
 * A `mac` body field: any accepted notation, canonicalized before validation (CONTRACT.md §6).
 * Missing or not a hardware address → 400 naming `mac`.
 */
export function MacField(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (canonicalMac(value) ?? value) : value)),
    Validate(HardwareAddress),
  );
}

/** `firmware_version`: 1 to 64 printable characters (CONTRACT.md §6). */
export function FirmwareVersionField(): PropertyDecorator {
  return applyDecorators(
    IsString({ message: 'firmware_version must be a string' }),
    Length(1, 64, { message: 'firmware_version must be 1 to 64 characters' }),
    Matches(NO_CONTROL, { message: 'firmware_version must be printable characters' }),
  );
}

/** Optional `name`: 1 to 128 characters without control characters (CONTRACT.md §6). */
export function DeviceNameField(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsString({ message: 'name must be a string' }),
    Length(1, 128, { message: 'name must be 1 to 128 characters' }),
    Matches(NO_CONTROL, { message: 'name must not contain control characters' }),
  );
}
