import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { canonicalIdentifier, INVALID_IDENTIFIER } from '#src/platform/common/device-identifier.js';

/**
 * Reads a device path parameter of the operator surface (docs/decisions.md §11): a hardware
 * address in any notation (canonicalized) or a controller id; anything else is 400.
 */
@Injectable()
export class IdentifierParamPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const identifier = canonicalIdentifier(value);
    if (!identifier) throw new BadRequestException(INVALID_IDENTIFIER);
    return identifier;
  }
}
