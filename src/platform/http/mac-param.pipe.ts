import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { canonicalMac, INVALID_MAC } from '#src/platform/common/mac.js';
import { FieldException } from './http-error.filter.js';

/** Canonicalizes a `:mac` / `:id` path parameter; anything else is 400 naming the parameter (docs/decisions.md §6). */
@Injectable()
export class MacParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata?: ArgumentMetadata): string {
    const mac = canonicalMac(value);
    if (!mac) throw new FieldException(metadata?.data ?? 'mac', INVALID_MAC);
    return mac;
  }
}
