import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { OptionalField } from '#src/platform/common/dto-fields.js';
import { AUTH_SET_STATUSES, type AuthSetStatus } from '#src/domain/identity/device-auth-set.entity.js';
import { PageOf, PageQuery } from './paging.dto.js';

/** 400 texts of the auth set routes' inputs. */
export const DeviceAuthMessages = {
  status: `status must be one of ${AUTH_SET_STATUSES.join(', ')}`,
  publicKey: 'public_key must be a string',
  identity: 'give the device’s identity as mac or as id_data, not both',
  mac: 'mac must be a string',
  idData: 'id_data must be an object of strings or lists of strings',
  autoAccept: 'auto_accept must be true or false',
} as const;

/** `?status=&page=&per_page=` of `GET /tenants/:tenant/device-auth-sets`. */
export class AuthSetListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: AUTH_SET_STATUSES, description: 'only auth sets in this state (all when absent)', example: 'pending' })
  @IsOptional()
  @IsIn(AUTH_SET_STATUSES, { message: DeviceAuthMessages.status })
  status?: AuthSetStatus;
}

/** Body of `POST /tenants/:tenant/device-auth-sets`: a preauthorization. */
export class PreauthorizeDto {
  @ApiPropertyOptional({
    description: 'the device’s mac: its identity is then `{"mac": "<mac>"}` (the device may send more attributes; the mac names it)',
    example: '02:00:00:00:00:01',
  })
  @OptionalField()
  @IsString({ message: DeviceAuthMessages.mac })
  mac?: string;

  @ApiPropertyOptional({
    description: 'the device’s whole identity, as its identity script prints it, for devices named by something other than a mac',
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    example: { serial: 'SN-0001', board: 'rpi4' },
  })
  @OptionalField()
  @IsObject({ message: DeviceAuthMessages.idData })
  id_data?: Record<string, string | string[]>;

  @ApiProperty({
    description: 'the device’s public key, PEM: RSA (2048 bits or more), ECDSA (P-256, P-384, P-521) or Ed25519',
    example: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n',
  })
  @IsString({ message: DeviceAuthMessages.publicKey })
  public_key: string;
}

/** Body of `PUT /tenants/:tenant/device-keys/:id/auto-accept`. */
export class AutoAcceptDto {
  @ApiProperty({ description: 'accept Mender devices new to the tenant that authenticate with this key at once', example: true })
  @IsBoolean({ message: DeviceAuthMessages.autoAccept })
  auto_accept: boolean;
}

/** Body of `PUT /tenants/:tenant/artifact-verify-key`. */
export class ArtifactVerifyKeyDto {
  @ApiProperty({
    description: 'PEM public key (RSA or ECDSA) every Mender artifact the tenant publishes must be signed with',
    example: '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE…\n-----END PUBLIC KEY-----\n',
  })
  @IsString({ message: 'public_key must be a string' })
  public_key: string;
}

/** An auth set (docs/decisions.md §13): a Mender device's identity with one public key, and its state. */
export class AuthSetResponse {
  @ApiProperty({ description: 'auth set id', example: 4 })
  id: number;

  @ApiProperty({ description: 'the device’s identifier: its mac, or `mender-` and a digest of its identity', example: '02:00:00:00:00:01' })
  identifier: string;

  @ApiProperty({
    description: 'the identity, as the device (or the preauthorization) gave it',
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    example: { mac: '02:00:00:00:00:01', serial: 'SN-0001' },
  })
  id_data: Record<string, string | string[]>;

  @ApiProperty({
    description: 'SHA-256 of the key’s DER SubjectPublicKeyInfo, lowercase hex (`openssl pkey -pubin -outform DER | sha256sum`)',
    example: '5f8a2d0c6b1e9a7f3c4d2b1a0e9f8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e',
  })
  fingerprint: string;

  @ApiProperty({ enum: ['rsa', 'ec', 'ed25519'], description: 'the key’s type', example: 'ec' })
  key_type: string;

  @ApiProperty({ description: 'the key, PEM', example: '-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----\n' })
  public_key: string;

  @ApiProperty({ enum: AUTH_SET_STATUSES, description: 'its state', example: 'pending' })
  status: AuthSetStatus;

  @ApiProperty({
    description: 'the device type of the device key its tenant token named; null before the device was seen',
    type: String,
    nullable: true,
    example: 'raspberrypi4',
  })
  device_type: string | null;

  @ApiProperty({ description: 'that device key’s id; null before the device was seen', type: Number, nullable: true, example: 3 })
  device_key_id: number | null;

  @ApiProperty({ description: 'when the device (or an operator) first gave it, ISO 8601 UTC', example: '2026-12-01T09:00:00.000Z' })
  created_at: string;

  @ApiProperty({ description: 'its last change, ISO 8601 UTC', example: '2026-12-01T09:05:00.000Z' })
  updated_at: string;
}

/** One page of auth sets, newest first. */
export class AuthSetPage extends PageOf(AuthSetResponse, {
  description: 'auth sets, newest first',
  example: [
    {
      id: 4,
      identifier: '02:00:00:00:00:01',
      id_data: { mac: '02:00:00:00:00:01', serial: 'SN-0001' },
      fingerprint: '5f8a2d0c6b1e9a7f3c4d2b1a0e9f8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e',
      key_type: 'ec',
      public_key: '-----BEGIN PUBLIC KEY-----\n…\n-----END PUBLIC KEY-----\n',
      status: 'pending',
      device_type: 'raspberrypi4',
      device_key_id: 3,
      created_at: '2026-12-01T09:00:00.000Z',
      updated_at: '2026-12-01T09:00:00.000Z',
    },
  ],
}) {}
