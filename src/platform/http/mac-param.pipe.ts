import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { canonicalMac, INVALID_MAC } from '#src/platform/common/mac.js';

/** Canonicalizes a `:mac` / `:id` path parameter; anything else is 400 (docs/decisions.md §6). */
@Injectable()
export class MacParamPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    const mac = canonicalMac(value);
    if (!mac) throw new BadRequestException(INVALID_MAC);
    return mac;
  }
}
