import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DEPLOYMENT_STATUSES, type DeploymentStatus } from '#src/protocols/mender/mender-bodies.js';

/**
 * The wire shapes of the Mender component (docs/decisions.md §13), as Mender's device API documents
 * them (`deviceauth`, `inventory`, `deployments` `docs/devices_api.yml`) and the Mender client 3.4
 * sends them. Bodies are read by `mender-bodies.ts`; these classes document them.
 */

const HOST = 'http://mender.example.com:3008';

const SOURCE_EXAMPLE = {
  uri: `${HOST}/api/devices/v1/deployments/download/1/3/12?expires=1800000000&signature=Jq1bL0d3YV2v4h2Zc8QY8m0u1d2U3Cq9N2oQkz2xR1E`,
  expire: '2026-12-02T09:00:00.000Z',
};

/** `POST /api/devices/v1/authentication/auth_requests`. */
export class MenderAuthRequest {
  @ApiProperty({
    description: 'the device’s identity: a JSON object in a string, as its identity script prints it (`mac` names the device)',
    example: '{"mac":"02:00:00:00:00:01","serial":"SN-0001"}',
  })
  id_data: string;

  @ApiProperty({
    description: 'the device’s public key, PEM: RSA (2048 bits or more), ECDSA (P-256, P-384, P-521) or Ed25519',
    example: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n',
  })
  pubkey: string;

  @ApiProperty({
    description: 'the tenant token: a device key of the tenant (its device type becomes the device’s)',
    example: 'Tz9dQw1mF0bQ3kz7WcYfPa',
  })
  tenant_token: string;
}

/** One inventory attribute. */
export class MenderInventoryAttribute {
  @ApiProperty({ description: 'the attribute’s name, 1 to 128 characters', example: 'artifact_name' })
  name: string;

  @ApiProperty({
    description: 'its value: a string, a number, or a list of them (kept as JSON text); cut to 1024 characters',
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' } }],
    example: 'release-1',
  })
  value: string | number | string[];
}

/** `POST /api/devices/v2/deployments/device/deployments/next`. */
export class MenderNextRequest {
  @ApiProperty({
    description:
      'what the device has: `artifact_name` (the version it runs, 1 to 64 printable characters), `device_type` and its other provides',
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { artifact_name: 'release-1', device_type: 'raspberrypi4', 'rootfs-image.single-file.version': 'release-1' },
  })
  device_provides: Record<string, string>;

  @ApiPropertyOptional({ description: 'whether the client handles update control maps (none are given)', example: true })
  update_control_map?: boolean;
}

/** The provides of the v1 `next` POST: the device's `artifact_name` and `device_type`, flat. */
export class MenderProvides {
  @ApiProperty({ description: 'the artifact the device runs: its version, 1 to 64 printable characters', example: 'release-1' })
  artifact_name: string;

  @ApiProperty({ description: 'the device’s type', example: 'raspberrypi4' })
  device_type: string;
}

/** Where the client downloads the artifact from. */
export class MenderArtifactSource {
  @ApiProperty({
    description: 'an absolute, signed link that works without a token until `expire`',
    example: `${HOST}/api/devices/v1/deployments/download/1/3/12?expires=1800000000&signature=Jq1bL0d3YV2v4h2Zc8QY8m0u1d2U3Cq9N2oQkz2xR1E`,
  })
  uri: string;

  @ApiProperty({ description: 'when the link stops working, ISO 8601 UTC (a day after it was given)', example: '2026-12-02T09:00:00.000Z' })
  expire: string;
}

/** The artifact of a deployment. */
export class MenderDeploymentArtifact {
  @ApiProperty({ description: 'the firmware id', example: '3' })
  id: string;

  @ApiProperty({ description: 'the artifact’s name (the firmware version)', example: 'release-2' })
  artifact_name: string;

  @ApiProperty({ type: MenderArtifactSource, description: 'where to download it', example: SOURCE_EXAMPLE })
  source: MenderArtifactSource;

  @ApiProperty({ type: [String], description: 'the device types it installs on', example: ['raspberrypi4'] })
  device_types_compatible: string[];
}

/** A deployment: what the device is to install. */
export class MenderDeployment {
  @ApiProperty({ description: 'the deployment id: the rollout id, for the status and log reports', example: '7' })
  id: string;

  @ApiProperty({
    type: MenderDeploymentArtifact,
    description: 'the artifact to install',
    example: { id: '3', artifact_name: 'release-2', source: SOURCE_EXAMPLE, device_types_compatible: ['raspberrypi4'] },
  })
  artifact: MenderDeploymentArtifact;
}

/** `PUT /api/devices/v1/deployments/device/deployments/{id}/status`. */
export class MenderStatusReport {
  @ApiProperty({ enum: DEPLOYMENT_STATUSES, description: 'where the client is in the deployment', example: 'downloading' })
  status: DeploymentStatus;

  @ApiPropertyOptional({
    description: 'what it is doing there (state scripts); kept nowhere',
    example: 'Executing script: ArtifactInstall_Enter_00',
  })
  substate?: string;
}

/** One line of a deployment log. */
export class MenderLogMessage {
  @ApiProperty({ description: 'RFC 3339 time, as the client wrote it', example: '2026-12-01T09:00:00Z' })
  timestamp: string;

  @ApiProperty({ description: '`debug`, `info`, `warning`, `error`…', example: 'error' })
  level: string;

  @ApiProperty({
    description: 'the line, cut to 4096 characters',
    example: 'Artifact install failed: Payload: can not install Payload: hello.txt: invalid checksum',
  })
  message: string;
}

/** `PUT /api/devices/v1/deployments/device/deployments/{id}/log`. */
export class MenderDeploymentLog {
  @ApiProperty({
    type: [MenderLogMessage],
    description: 'the client’s log of the failed deployment, oldest first (the last 2000 lines are kept)',
    example: [
      { timestamp: '2026-12-01T09:00:00Z', level: 'info', message: 'Running Mender client version: 3.4.0' },
      {
        timestamp: '2026-12-01T09:00:01Z',
        level: 'error',
        message: 'Artifact install failed: Payload: can not install Payload: hello.txt: invalid checksum',
      },
    ],
  })
  messages: MenderLogMessage[];
}
