import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsString, Validate, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { OptionalField, PrintableTextField, printableTextMessages } from '#src/platform/common/dto-fields.js';
import { INVALID_FILENAME, isFirmwareFilename } from '#src/domain/firmware/firmware.service.js';

@ValidatorConstraint({ name: 'firmwareFilename' })
class FirmwareFilename implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isFirmwareFilename(value);
  }
  defaultMessage(): string {
    return INVALID_FILENAME;
  }
}
import { PageOf } from './paging.dto.js';

/** 400 texts of the upload query's fields (the message names the field). */
export const UploadFirmwareMessages = {
  version: printableTextMessages('version'),
  deviceType: printableTextMessages('device_type'),
  filename: INVALID_FILENAME,
} as const;

/**
 * `?version=&device_type=` of `POST /tenants/:tenant/firmware` (docs/decisions.md §9). Each field is
 * checked for presence, then type, length and control characters, stopping at the first failure.
 */
export class UploadFirmwareQuery {
  /** Version the binary is, as devices will report it (docs/decisions.md §6: 1 to 64 printable characters). */
  @ApiProperty({ description: 'firmware version, 1 to 64 printable characters', example: '1.2.0', minLength: 1, maxLength: 64 })
  @PrintableTextField('version', { required: true })
  version: string;

  /** Device type (`dType` of device keys) the binary is built for. */
  @ApiProperty({ description: 'device type the binary is built for (dType)', example: 'ESP32', minLength: 1, maxLength: 64 })
  @PrintableTextField('device_type', { required: true })
  device_type: string;

  /** The file it comes from, kept for hawkBit DDI devices (docs/decisions.md §12). */
  @ApiPropertyOptional({
    description:
      'the name of the file it comes from, kept as the artifact’s file name for hawkBit DDI devices (SWUpdate installs only `.swu` ' +
      'files): 1 to 255 characters without /, \\ or control characters; `<device_type>-<version>.bin` when absent',
    example: 'pump-1.2.0.swu',
  })
  @OptionalField()
  @Validate(FirmwareFilename)
  @IsString({ message: INVALID_FILENAME })
  filename?: string;
}

/**
 * `?device_type=&filename=` of `POST /tenants/:tenant/firmware/mender` (docs/decisions.md §13): the
 * version and the device types come from the artifact's header.
 */
export class UploadMenderArtifactQuery {
  @ApiPropertyOptional({
    description: 'the firmware’s device type, when the artifact is compatible with several: one of them',
    example: 'raspberrypi4',
    minLength: 1,
    maxLength: 64,
  })
  @OptionalField()
  @PrintableTextField('device_type')
  device_type?: string;

  @ApiPropertyOptional({
    description:
      'the name of the file it comes from: 1 to 255 characters without /, \\ or control characters; `<artifact name>.mender` when absent',
    example: 'release-2.mender',
  })
  @OptionalField()
  @Validate(FirmwareFilename)
  @IsString({ message: INVALID_FILENAME })
  filename?: string;
}

/** What a Mender artifact's header says (docs/decisions.md §13). */
export class MenderArtifactResponse {
  @ApiProperty({ description: 'the artifact’s name: the firmware version', example: 'release-2' })
  artifact_name: string;

  @ApiProperty({ description: 'its artifact group, null when it has none', type: String, nullable: true, example: null })
  artifact_group: string | null;

  @ApiProperty({ type: [String], description: 'the device types it installs on', example: ['raspberrypi4'] })
  device_types_compatible: string[];

  @ApiProperty({
    description: 'what its payloads provide, by name',
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { 'rootfs-image.single-file.version': 'release-2' },
  })
  provides: Record<string, string>;

  @ApiProperty({ type: [String], description: 'the payload (update module) types, in order', example: ['single-file'] })
  payload_types: string[];

  @ApiProperty({ description: 'whether it carries a signature (`manifest.sig`)', example: true })
  signed: boolean;

  @ApiProperty({
    description:
      'fingerprint of the tenant’s artifact verification key its signature was checked with when it was published; null when ' +
      'it was not checked (the tenant had no key)',
    type: String,
    nullable: true,
    example: 'b4fd568f9125de39bd8047ce48d79592964886aaa54203d428bf7f44bd4fc3df',
  })
  verified_with: string | null;
}

/** A published firmware (docs/decisions.md §7, §9): digests of the stored binary. */
export class FirmwareResponse {
  @ApiProperty({ description: 'firmware id (the `firmware_id` of rollouts and `fwId` of ledger lookups)', example: 1 })
  id: number;

  @ApiProperty({ description: 'firmware version', example: '1.2.0' })
  version: string;

  @ApiProperty({ description: 'device type the binary is built for', example: 'ESP32' })
  device_type: string;

  @ApiProperty({ description: 'size of the binary, bytes', example: 12 })
  size: number;

  @ApiProperty({ description: 'lowercase hex MD5 of the binary (the ledger `md`)', example: '6f5902ac237024bdd0c176cb93063dc4' })
  md5: string;

  @ApiProperty({
    description: 'lowercase hex SHA-256 of the binary',
    example: 'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447',
  })
  sha256: string;

  @ApiProperty({
    description: 'CIDv0 that `ipfs add` with its defaults gives the binary; devices download it from the IPFS component ({ipfs_url})',
    example: 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o',
  })
  cid: string;

  @ApiProperty({ description: 'when it was published, ISO 8601 UTC', example: '2026-11-21T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({
    description: 'the artifact’s file name for hawkBit DDI devices: the file it was published from, or `<device_type>-<version>.bin`',
    example: 'ESP32-1.2.0.bin',
  })
  filename: string;

  @ApiProperty({
    type: MenderArtifactResponse,
    nullable: true,
    description: 'what its header says, for a Mender artifact (docs/decisions.md §13); null for any other binary',
    example: null,
  })
  mender_artifact: MenderArtifactResponse | null;

  @ApiProperty({
    description: 'marked as a rollback target: a rollout’s rollback policy may name it (docs/decisions.md §10.4)',
    example: false,
  })
  rollback_target: boolean;
}

/** What `rollback_target` must be. */
export const ROLLBACK_TARGET_BOOLEAN = 'rollback_target must be true or false';

/** `PATCH /tenants/:tenant/firmware/:id`: what an operator may change of a published firmware (its bytes never change). */
export class UpdateFirmwareRequest {
  @ApiProperty({
    description: 'mark it as a rollback target (true) or take the mark away (false) (docs/decisions.md §10.4)',
    example: true,
  })
  @IsDefined({ message: ROLLBACK_TARGET_BOOLEAN })
  @IsBoolean({ message: ROLLBACK_TARGET_BOOLEAN })
  rollback_target: boolean;
}

const FIRMWARE_EXAMPLE: FirmwareResponse = {
  id: 1,
  version: '1.2.0',
  device_type: 'ESP32',
  size: 12,
  md5: '6f5902ac237024bdd0c176cb93063dc4',
  sha256: 'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447',
  cid: 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o',
  created_at: '2026-11-21T10:00:00.000Z',
  filename: 'ESP32-1.2.0.bin',
  mender_artifact: null,
  rollback_target: false,
};

/** One page of `GET /tenants/:tenant/firmware`, oldest first. */
export class FirmwarePage extends PageOf(FirmwareResponse, { description: 'firmware of this page, by id', example: [FIRMWARE_EXAMPLE] }) {}
