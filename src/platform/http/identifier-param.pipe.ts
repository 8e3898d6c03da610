import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { canonicalIdentifier, INVALID_IDENTIFIER } from '#src/platform/common/device-identifier.js';
import { FieldException } from './http-error.filter.js';

/**
 * Reads a device path parameter of the operator surface (docs/decisions.md §11): a hardware
 * address in any notation (canonicalized) or a controller id; anything else is 400 naming the
 * parameter.
 */
@Injectable()
export class IdentifierParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata?: ArgumentMetadata): string {
    const identifier = canonicalIdentifier(value);
    if (!identifier) throw new FieldException(metadata?.data ?? 'device', INVALID_IDENTIFIER);
    return identifier;
  }
}
