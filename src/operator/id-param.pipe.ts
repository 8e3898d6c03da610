import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';

/** 400 texts of a bad `:id` path parameter. */
export const IdParamMessages = {
  notWhole: 'id must be a whole number',
  tooSmall: 'id must be at least 1',
} as const;

/**
 * An `:id` path parameter: decimal digits only (`1e3`, `0x1`, `-1` are not ids) and at least 1,
 * else 400 `id must be a whole number` / `id must be at least 1`. A well-formed id of any length
 * is passed on: one beyond the column's range names nothing, and the lookup answers it as absent
 * (404, see `isStoredId`), like any id no row has.
 */
@Injectable()
export class IdParamPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^\d+$/.test(value)) throw new BadRequestException(IdParamMessages.notWhole);
    const id = Number(value);
    if (id < 1) throw new BadRequestException(IdParamMessages.tooSmall);
    return id;
  }
}
