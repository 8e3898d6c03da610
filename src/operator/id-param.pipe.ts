import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';

/**
 * An `:id` path parameter: decimal digits only (`1e3`, `0x1`, `-1` are not ids) and at least 1,
 * else 400 `id must be a whole number` / `id must be at least 1`.
 */
@Injectable()
export class IdParamPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^\d{1,15}$/.test(value)) throw new BadRequestException('id must be a whole number');
    const id = Number(value);
    if (id < 1) throw new BadRequestException('id must be at least 1');
    return id;
  }
}
