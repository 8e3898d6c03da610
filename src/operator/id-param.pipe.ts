import { BadRequestException, Injectable, PipeTransform } from '@nestjs/common';

/** An `:id` path parameter: decimal digits, else 400 `id must be a whole number`. */
@Injectable()
export class IdParamPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^\d{1,15}$/.test(value)) throw new BadRequestException('id must be a whole number');
    return Number(value);
  }
}
