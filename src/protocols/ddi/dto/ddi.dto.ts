import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * The wire shapes of the DDI component (docs/decisions.md §12), as Eclipse hawkBit's DDI API
 * documents them (`hawkbit-ddi-api`, `org.eclipse.hawkbit.ddi.json.model`). Responses are built
 * by the functions of `ddi-responses.ts`; these classes document them.
 */

const HOST = 'http://ddi.example.com:3007';
const ROOT = `${HOST}/acme/controller/v1/pump-7`;

/** A hypermedia link. */
export class DdiLink {
  @ApiProperty({ description: 'absolute URL', example: `${ROOT}/deploymentBase/7?c=1454` })
  href: string;
}

/** `config.polling`. */
export class DdiPolling {
  @ApiProperty({ description: 'time to the next poll, `HH:MM:SS` (the tenant’s DDI polling interval)', example: '00:05:00' })
  sleep: string;
}

/** `config`. */
export class DdiConfig {
  @ApiProperty({ type: DdiPolling, description: 'polling', example: { sleep: '00:05:00' } })
  polling: DdiPolling;
}

/** Links of the root resource. */
export class DdiControllerLinks {
  @ApiPropertyOptional({
    type: DdiLink,
    description: 'the action to take (absent while a cancellation is given)',
    example: { href: `${ROOT}/deploymentBase/7?c=1454` },
  })
  deploymentBase?: DdiLink;

  @ApiPropertyOptional({
    type: DdiLink,
    description: 'an action to stop (takes priority over deploymentBase)',
    example: { href: `${ROOT}/cancelAction/6` },
  })
  cancelAction?: DdiLink;

  @ApiPropertyOptional({
    type: DdiLink,
    description: 'the last action the device closed with success',
    example: { href: `${ROOT}/installedBase/5` },
  })
  installedBase?: DdiLink;

  @ApiPropertyOptional({
    type: DdiLink,
    description: 'present while the server wants the device’s attributes (it never sent any)',
    example: { href: `${ROOT}/configData` },
  })
  configData?: DdiLink;
}

/** `GET /{tenant}/controller/v1/{controllerId}`. */
export class DdiControllerBase {
  @ApiProperty({ type: DdiConfig, description: 'polling configuration', example: { polling: { sleep: '00:05:00' } } })
  config: DdiConfig;

  @ApiProperty({
    type: DdiControllerLinks,
    description: 'what the device should fetch next; `{}` when nothing',
    example: { deploymentBase: { href: `${ROOT}/deploymentBase/7?c=1454` } },
  })
  _links: DdiControllerLinks;
}

/** Hashes of an artifact, lowercase hex. */
export class DdiArtifactHash {
  @ApiProperty({ description: 'SHA-1 (what SWUpdate checks)', example: '574cd34be20f75d101ed23518339cc38c5157bdb' })
  sha1: string;

  @ApiProperty({ description: 'MD5', example: 'a0637c1ccb9fd53e2ba6f45712516989' })
  md5: string;

  @ApiProperty({ description: 'SHA-256', example: '498014801aab66be1d7fbea56b1aa5959651b6fd710308e196a8c414029e7291' })
  sha256: string;
}

const ARTIFACT = `${ROOT}/softwaremodules/3/artifacts/pump-1.1.0.swu`;

/** Links of an artifact. */
export class DdiArtifactLinks {
  @ApiProperty({ type: DdiLink, description: 'the download (the scheme the device polled with)', example: { href: ARTIFACT } })
  download: DdiLink;

  @ApiProperty({ type: DdiLink, description: 'the MD5SUM file', example: { href: `${ARTIFACT}.MD5SUM` } })
  md5sum: DdiLink;

  @ApiPropertyOptional({
    type: DdiLink,
    description: 'the download over plain HTTP (only when the device polled over HTTP)',
    example: { href: ARTIFACT },
  })
  'download-http'?: DdiLink;

  @ApiPropertyOptional({
    type: DdiLink,
    description: 'the MD5SUM file over plain HTTP (only when the device polled over HTTP)',
    example: { href: `${ARTIFACT}.MD5SUM` },
  })
  'md5sum-http'?: DdiLink;
}

/** A firmware as a DDI artifact. */
export class DdiArtifact {
  @ApiProperty({ description: 'the name of the file the firmware was published from', example: 'pump-1.1.0.swu' })
  filename: string;

  @ApiProperty({
    type: DdiArtifactHash,
    description: 'hashes',
    example: {
      sha1: '574cd34be20f75d101ed23518339cc38c5157bdb',
      md5: 'a0637c1ccb9fd53e2ba6f45712516989',
      sha256: '498014801aab66be1d7fbea56b1aa5959651b6fd710308e196a8c414029e7291',
    },
  })
  hashes: DdiArtifactHash;

  @ApiProperty({ description: 'size, bytes', example: 4718592 })
  size: number;

  @ApiProperty({
    type: DdiArtifactLinks,
    description: 'download links',
    example: { download: { href: ARTIFACT }, md5sum: { href: `${ARTIFACT}.MD5SUM` } },
  })
  _links: DdiArtifactLinks;
}

/** A chunk: the rollout's firmware (a hawkBit software module). */
export class DdiChunk {
  @ApiProperty({ description: 'the kind of software: always `os`', example: 'os' })
  part: string;

  @ApiProperty({ description: 'the firmware version', example: '1.1.0' })
  version: string;

  @ApiProperty({ description: 'the firmware’s device type', example: 'pump-board' })
  name: string;

  @ApiProperty({ type: [DdiArtifact], description: 'its one artifact', example: [{ filename: 'pump-1.1.0.swu', size: 4718592 }] })
  artifacts: DdiArtifact[];
}

/** `deployment`. */
export class DdiDeployment {
  @ApiProperty({ description: '`forced` or `attempt` (a soft rollout)', enum: ['forced', 'attempt'], example: 'forced' })
  download: string;

  @ApiProperty({
    description: '`forced`, `attempt` (soft) or `skip` (download-only)',
    enum: ['forced', 'attempt', 'skip'],
    example: 'forced',
  })
  update: string;

  @ApiPropertyOptional({
    description:
      'only for a rollout with maintenance windows (docs/decisions.md §10.1): `available` inside a window; `unavailable` ' +
      'outside every window, then `update` is `skip` (download now, install once a window opens), as hawkBit',
    enum: ['available', 'unavailable'],
    example: 'unavailable',
  })
  maintenanceWindow?: 'available' | 'unavailable';

  @ApiProperty({ type: [DdiChunk], description: 'what to install', example: [{ part: 'os', version: '1.1.0', name: 'pump-board' }] })
  chunks: DdiChunk[];
}

/** `actionHistory`, when asked for with `?actionHistory=`. */
export class DdiActionHistory {
  @ApiProperty({ description: 'the action’s status, in hawkBit’s words', example: 'RUNNING' })
  status: string;

  @ApiProperty({
    type: [String],
    description: 'the device’s state changes in the rollout, newest first',
    example: ['downloading at 2026-11-21T10:06:00.000Z'],
  })
  messages: string[];
}

/** `GET …/deploymentBase/{actionId}` and `GET …/installedBase/{actionId}`. */
export class DdiDeploymentBase {
  @ApiProperty({ description: 'the action id (the rollout id), decimal text', example: '7' })
  id: string;

  @ApiProperty({ type: DdiDeployment, description: 'the deployment', example: { download: 'forced', update: 'forced', chunks: [] } })
  deployment: DdiDeployment;

  @ApiPropertyOptional({
    type: DdiActionHistory,
    description: 'present when `actionHistory` asked for it',
    example: { status: 'RUNNING', messages: ['offered at 2026-11-21T10:05:00.000Z'] },
  })
  actionHistory?: DdiActionHistory;
}

/** `cancelAction`. */
export class DdiCancelActionToStop {
  @ApiProperty({ description: 'the action to stop, decimal text', example: '6' })
  stopId: string;
}

/** `GET …/cancelAction/{actionId}`. */
export class DdiCancel {
  @ApiProperty({ description: 'the action id, decimal text', example: '6' })
  id: string;

  @ApiProperty({ type: DdiCancelActionToStop, description: 'what to stop', example: { stopId: '6' } })
  cancelAction: DdiCancelActionToStop;
}

/** `status.result.progress`: read but not used (clients send `cnt` greater than `of`). */
export class DdiProgress {
  @ApiPropertyOptional({ description: 'achieved', example: 1 })
  cnt?: number;

  @ApiPropertyOptional({ description: 'of', example: 1 })
  of?: number;
}

/** `status.result`. */
export class DdiResult {
  @ApiProperty({ description: 'the result', enum: ['success', 'failure', 'none'], example: 'none' })
  finished: string;

  @ApiPropertyOptional({ type: DdiProgress, description: 'progress (not used)', example: { cnt: 0, of: 1 } })
  progress?: DdiProgress;
}

/** `status`. */
export class DdiStatus {
  @ApiProperty({
    description: 'what the device is doing',
    enum: ['closed', 'proceeding', 'canceled', 'scheduled', 'rejected', 'resumed', 'downloaded', 'download'],
    example: 'proceeding',
  })
  execution: string;

  @ApiProperty({ type: DdiResult, description: 'the result', example: { finished: 'none' } })
  result: DdiResult;

  @ApiPropertyOptional({ description: 'a status code of the device’s own', example: 200 })
  code?: number;

  @ApiPropertyOptional({ type: [String], description: 'messages; kept with a failure', example: ['Installing Update Chunk Artifacts.'] })
  details?: string[];
}

/**
 * Body of the feedback channels. `id`, `time` (old clients) and `timestamp` are read and ignored;
 * raw line feeds inside strings (SWUpdate sends them) are accepted.
 */
export class DdiActionFeedback {
  @ApiProperty({
    type: DdiStatus,
    description: 'the status',
    example: { execution: 'closed', result: { finished: 'success' }, details: ['Update Installed.'] },
  })
  status: DdiStatus;

  @ApiPropertyOptional({ description: 'when it happened on the device, epoch milliseconds (ignored)', example: 1764152400000 })
  timestamp?: number;

  @ApiPropertyOptional({ description: 'the action id as some clients repeat it (ignored)', example: 7 })
  id?: number;

  @ApiPropertyOptional({ description: 'local time as old clients send it (ignored)', example: '20261126T105143' })
  time?: string;
}

/** Body of `PUT …/configData`. */
export class DdiConfigData {
  @ApiProperty({
    description: 'attributes: at most 100 keys, keys and values 1 to 128 characters (hawkBit’s limits)',
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { serial: 'SN-0012', hwRevision: '1.0' },
  })
  data: Record<string, string>;

  @ApiPropertyOptional({
    description: 'how they change the kept ones (default `merge`)',
    enum: ['merge', 'replace', 'remove'],
    example: 'merge',
  })
  mode?: string;
}
