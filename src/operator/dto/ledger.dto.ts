import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import type { LedgerOrder } from '#src/domain/ledger/ledger.service.js';
import { PageOf, PageQuery } from './paging.dto.js';

/** 400 text of a bad `order`. */
export const LEDGER_ORDER_MESSAGE = 'order must be asc or desc';

/** `GET /ledger/entries` query: paging, an optional tenant and the order. */
export class LedgerEntriesQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'only entries of this tenant (id or name)', example: 'acme' })
  @IsOptional()
  @Length(1, 128, { message: 'tenant must be 1 to 128 characters' })
  @IsString({ message: 'tenant must be a string' })
  tenant?: string;

  @ApiPropertyOptional({
    description: 'by sequence number, oldest first (`asc`) or newest first (`desc`)',
    enum: ['asc', 'desc'],
    example: 'desc',
  })
  @IsOptional()
  @IsIn(['asc', 'desc'], { message: LEDGER_ORDER_MESSAGE })
  order: LedgerOrder = 'asc';
}

/** Where the chain stops matching. */
export class ChainBreakResponse {
  @ApiProperty({
    description: 'sequence number of the first entry that does not match (for a checkpoint: its tree size)',
    example: 42,
  })
  seq: number;

  @ApiProperty({ description: 'what does not match', example: 'hash does not match the entry content' })
  reason: string;
}

/** Where the TUF metadata does not hold. */
export class TufBreakResponse {
  @ApiProperty({ description: 'the repository: tenant id and device type', example: 'tenant 1 ESP32' })
  repository: string;

  @ApiProperty({ description: 'what does not hold', example: 'root v2 is not signed by a threshold of the root keys of root v1' })
  reason: string;
}

/** The TUF part of `GET /ledger/verify`: every repository's metadata checked as a TUF client would. */
export class TufVerifyResponse {
  @ApiProperty({ description: 'whether every repository’s metadata holds (signatures, versions, links)', example: true })
  ok: boolean;

  @ApiProperty({ description: 'repositories (tenant and device type) checked', example: 3 })
  repositories: number;

  @ApiProperty({ description: 'metadata files checked', example: 14 })
  files: number;

  @ApiProperty({
    description: 'newest metadata past its expiry: signed again at the repository’s next read, refused by clients until then',
    type: [String],
    example: ['tenant 1 ESP32: timestamp v3 expired 2026-11-20T10:00:00Z'],
  })
  expired: string[];

  @ApiProperty({ type: TufBreakResponse, nullable: true, description: 'the first thing that does not hold, or null', example: null })
  first_break: TufBreakResponse | null;
}

/** The answer of `GET /ledger/verify`: the chain recomputed from the first entry (docs/decisions.md §7). */
export class LedgerVerifyResponse {
  @ApiProperty({
    description:
      'whether every entry matches its content and its predecessor, every checkpoint and cosignature verifies, and the TUF metadata holds',
    example: true,
  })
  ok: boolean;

  @ApiProperty({ description: 'entries checked (up to the first break)', example: 1234 })
  entries: number;

  @ApiProperty({
    description: 'hash of the last entry checked (64 zeros when empty)',
    example: '3f5a0c9e7b1d24680ace13579bdf02468ace13579bdf02468ace13579bdf0246',
  })
  head: string;

  @ApiProperty({
    type: ChainBreakResponse,
    nullable: true,
    description: 'the first entry that does not match, or null when ok',
    example: null,
  })
  first_break: ChainBreakResponse | null;

  @ApiProperty({ description: 'signed checkpoints checked: the log’s signature and the root of the entries up to their size', example: 12 })
  checkpoints: number;

  @ApiProperty({ description: 'witness cosignatures checked', example: 2 })
  cosignatures: number;

  @ApiProperty({
    type: TufVerifyResponse,
    description: 'the signed update metadata (TUF) of every repository',
    example: { ok: true, repositories: 3, files: 14, expired: [], first_break: null },
  })
  tuf: TufVerifyResponse;
}

/** One ledger entry (docs/decisions.md §7). */
export class LedgerEntryResponse {
  @ApiProperty({ description: 'position in the chain: 1, 2, 3…', example: 7 })
  seq: number;

  @ApiProperty({ description: 'tenant id', example: 1 })
  tenant_id: number;

  @ApiProperty({ description: 'what changed', example: 'device.registered' })
  type: string;

  @ApiProperty({ description: 'what it changed', example: 'device:AC:67:B2:01:02:03' })
  subject: string;

  @ApiProperty({
    description: 'the recorded new state of the subject (never a secret)',
    type: 'object',
    additionalProperties: true,
    example: { deviceType: 'ESP32', firmwareVersion: '1.0.0', mac: 'AC:67:B2:01:02:03', name: 'pump-7' },
  })
  payload: unknown;

  @ApiProperty({ description: 'time of the change, ISO 8601 UTC', example: '2026-11-21T10:00:00.000Z' })
  created_at: string;

  @ApiProperty({
    description:
      'who made the change: `user:<username>` (console), `token:<id>:<name>` (operator token), `cli:<account>` (the CLI on the ' +
      'server); null for what devices change themselves and for entries written before actors were recorded. Part of the hash when set.',
    example: 'user:alice',
    type: String,
    nullable: true,
  })
  actor: string | null;

  @ApiProperty({ description: 'hash of the previous entry (64 zeros for the first)', example: '0'.repeat(64) })
  prev_hash: string;

  @ApiProperty({
    description: 'SHA-256 of prev_hash and the canonical JSON of the entry',
    example: '3f5a0c9e7b1d24680ace13579bdf02468ace13579bdf02468ace13579bdf0246',
  })
  hash: string;
}

/** One page of ledger entries, in sequence order. */
export class LedgerEntryPage extends PageOf(LedgerEntryResponse, {
  description: 'entries in sequence order',
  example: [
    {
      seq: 1,
      tenant_id: 1,
      type: 'tenant.created',
      subject: 'tenant:1',
      payload: { id: 1, name: 'acme' },
      created_at: '2026-11-21T10:00:00.000Z',
      actor: 'user:alice',
      prev_hash: '0'.repeat(64),
      hash: '3f5a0c9e7b1d24680ace13579bdf02468ace13579bdf02468ace13579bdf0246',
    },
  ],
}) {}
