import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsString, Max, Min } from 'class-validator';

/** `:tenant` and `:id` of an operator path such as `/tenants/:tenant/rollouts/:id`. */
export class TenantResourceParams {
  @ApiProperty({ description: 'tenant id (digits) or name', example: 'acme' })
  @IsString({ message: 'tenant must be a string' })
  tenant: string;

  // class-validator checks the lowest decorator first (and stops there): whole number, then bounds.
  @ApiProperty({ description: 'id of the resource (decimal digits)', example: 1, minimum: 1 })
  // Decimal digits only: `1e3`, `0x10` or ` 7` are not ids.
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : NaN))
  @Max(Number.MAX_SAFE_INTEGER, { message: 'id is too large' })
  @Min(1, { message: 'id must be at least 1' })
  @IsInt({ message: 'id must be a whole number' })
  id: number;
}
