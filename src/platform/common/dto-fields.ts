import { applyDecorators } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import {
  IsDefined,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { canonicalMac, INVALID_MAC, isCanonicalMac } from './mac.js';
import { unstorableTextMessage } from './input-rules.js';

@ValidatorConstraint({ name: 'hardwareAddress' })
class HardwareAddress implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isCanonicalMac(value);
  }
  defaultMessage(): string {
    return INVALID_MAC;
  }
}

/**
 * An optional body field: absent (`undefined`) skips its checks, but `null` is checked like any
 * other value and so refused by its type check (class-validator's `IsOptional` lets `null` through,
 * to reach the service as if it were a value).
 */
export function OptionalField(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/** Text without control characters (C0, DEL, C1). */
export const NO_CONTROL = /^[^\p{Cc}]*$/u;

/**
 * A `mac` body field: any accepted notation, canonicalized before validation (docs/decisions.md §6).
 * Missing or not a hardware address → 400 naming `mac`.
 */
export function MacField(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (canonicalMac(value) ?? value) : value)),
    Validate(HardwareAddress),
  );
}

/** 400 texts of a {@link PrintableTextField} named `field`; each names the field. */
export function printableTextMessages(field: string): { required: string; string: string; length: string; printable: string } {
  return {
    required: `${field} is required`,
    string: `${field} must be a string`,
    length: `${field} must be 1 to 64 characters`,
    printable: `${field} must be printable characters`,
  };
}

/**
 * JSON Schema `pattern` of a {@link PrintableTextField}'s text: no control character ({@link NO_CONTROL})
 * and no lone surrogate (text that could not be stored, `isStorableText`). Lengths are in code points.
 */
export const PRINTABLE_TEXT_PATTERN = '^[^\\p{Cc}\\p{Cs}]*$';

/**
 * The 400 texts of a {@link PrintableTextField} named `field` for a body schema (`bodySchema`),
 * by the JSON Schema keyword its value failed: the same texts, in the same order of checks, as the
 * class-validator field: absent or not a string, then its length, then control characters, then
 * text that could not be stored.
 */
export function printableTextMessage(field: string): (keyword: string, value: unknown) => string {
  const messages = printableTextMessages(field);
  return (keyword, value) => {
    if (keyword === 'required' || keyword === 'type') return messages.string;
    if (keyword === 'minLength' || keyword === 'maxLength') return messages.length;
    return typeof value === 'string' && !NO_CONTROL.test(value) ? messages.printable : unstorableTextMessage(field);
  };
}

/**
 * A text field of 1 to 64 printable characters (docs/decisions.md §6), checked in this order and named
 * `field` in its 400 texts ({@link printableTextMessages}); `required` checks presence first.
 */
export function PrintableTextField(field: string, options: { required?: boolean } = {}): PropertyDecorator {
  const messages = printableTextMessages(field);
  return applyDecorators(
    ...(options.required ? [IsDefined({ message: messages.required })] : []),
    IsString({ message: messages.string }),
    Length(1, 64, { message: messages.length }),
    Matches(NO_CONTROL, { message: messages.printable }),
  );
}

/** `firmware_version`: 1 to 64 printable characters (docs/decisions.md §6). */
export function FirmwareVersionField(): PropertyDecorator {
  return PrintableTextField('firmware_version');
}

/** Optional `name`: 1 to 128 characters without control characters (docs/decisions.md §6). */
export function DeviceNameField(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsString({ message: 'name must be a string' }),
    Length(1, 128, { message: 'name must be 1 to 128 characters' }),
    Matches(NO_CONTROL, { message: 'name must not contain control characters' }),
  );
}

/** 400 texts of a whole number from 1 to a bound, each naming the field. */
export interface WholeNumberMessages {
  /** Not a whole number. */
  whole: string;
  /** Below 1. */
  min: string;
  /** Above the bound. */
  max: string;
}

/** The {@link WholeNumberMessages} of `field` with the bound `max`: `page must be a whole number`, `… at least 1`, `… at most 500`. */
export function wholeNumberMessages(field: string, max: number): WholeNumberMessages {
  return { whole: `${field} must be a whole number`, min: `${field} must be at least 1`, max: `${field} must be at most ${max}` };
}

/**
 * A query parameter holding a whole number from 1 to `max`, read from its text (`?page=2`) and
 * checked in this order: a whole number, at least 1, at most `max` (so `?page=abc` is named as not
 * a number before any bound), each 400 with its text of `messages` ({@link wholeNumberMessages}).
 */
export function WholeNumberQueryField(max: number, messages: WholeNumberMessages): PropertyDecorator {
  return applyDecorators(
    IsInt({ message: messages.whole }),
    Min(1, { message: messages.min }),
    Max(max, { message: messages.max }),
    Type(() => Number),
  );
}
