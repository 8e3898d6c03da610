import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { FieldException } from '#src/platform/http/http-error.filter.js';

/** 400 texts of a bad `:id` path parameter. */
export const IdParamMessages = {
  notWhole: 'id must be a whole number',
  tooSmall: 'id must be at least 1',
} as const;

/**
 * An `:id` path parameter: decimal digits only (`1e3`, `0x1`, `-1` are not ids) and at least 1,
 * else 400 `id must be a whole number` / `id must be at least 1`. A well-formed id of any length
 * is passed on: one beyond the column's range names nothing, and the lookup answers it as absent
 * (404, see `isStoredId`), like any id no row has. The 400 names the parameter as its field.
 */
@Injectable()
export class IdParamPipe implements PipeTransform<string, number> {
  transform(value: string, metadata?: ArgumentMetadata): number {
    const field = metadata?.data ?? 'id';
    if (!/^\d+$/.test(value)) throw new FieldException(field, IdParamMessages.notWhole);
    const id = Number(value);
    if (id < 1) throw new FieldException(field, IdParamMessages.tooSmall);
    return id;
  }
}
