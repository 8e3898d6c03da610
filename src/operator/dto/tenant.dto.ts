import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { INVALID_POLLING_SLEEP } from '#src/domain/tenant/ddi-polling.js';
import { PageOf } from './paging.dto.js';

/** Body of `POST /tenants`. */
export class CreateTenantDto {
  @ApiProperty({
    description: 'unique tenant name: 1 to 128 characters, no control characters, not only digits',
    example: 'acme',
    minLength: 1,
    maxLength: 128,
  })
  @IsString({ message: 'name must be a string' })
  name: string;
}

/** A tenant: never its customer key (docs/decisions.md §5, §9). */
export class TenantResponse {
  @ApiProperty({ description: 'tenant id', example: 1 })
  id: number;

  @ApiProperty({ description: 'tenant name', example: 'acme' })
  name: string;

  @ApiProperty({ description: 'creation time, ISO 8601 UTC', example: '2026-11-21T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({
    description: 'how often its hawkBit DDI devices poll, `HH:MM:SS` (their `config.polling.sleep`, docs/decisions.md §12)',
    example: '00:05:00',
  })
  ddi_polling_sleep: string;

  @ApiProperty({
    description:
      'SHA-256 fingerprint (lowercase hex of the DER SubjectPublicKeyInfo) of the key its Mender artifacts must be signed with ' +
      '(docs/decisions.md §13); null when it has none',
    type: String,
    nullable: true,
    example: null,
  })
  artifact_verify_key_fingerprint: string | null;
}

/** Body of `PUT /tenants/:tenant/ddi-polling`. */
export class DdiPollingDto {
  @ApiProperty({
    description: 'how often the tenant’s hawkBit DDI devices poll, `HH:MM:SS` from 00:00:01 to 23:59:59',
    example: '00:05:00',
  })
  @IsString({ message: INVALID_POLLING_SLEEP })
  sleep: string;
}

/**
 * A tenant with its customer key: the answer of create and rotate only, the only times the key
 * is shown. Devices sign logins with it: `hex(HMAC-SHA256(customer key, timestamp + device key))`
 * (docs/decisions.md §1).
 */
export class TenantWithKeyResponse extends TenantResponse {
  @ApiProperty({
    description: "the tenant's customer key: the shared secret of device signatures, shown only here (keep it)",
    example: 'c3VwZXItc2VjcmV0LWN1c3RvbWVyLWtleQ',
  })
  customer_key: string;
}

/** One page of tenants. */
export class TenantPage extends PageOf(TenantResponse, {
  description: 'tenants by id',
  example: [
    { id: 1, name: 'acme', created_at: '2026-11-21T10:00:00.000Z', ddi_polling_sleep: '00:05:00', artifact_verify_key_fingerprint: null },
  ],
}) {}
