import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';
import { wholeNumberMessages, WholeNumberQueryField } from '#src/platform/common/dto-fields.js';
import { MAX_ID } from '#src/platform/common/input-rules.js';
import { FieldException } from '#src/platform/http/http-error.filter.js';
import type { ConsistencyView, EntryProofView, InclusionView } from '#src/domain/ledger/ledger-proof.service.js';

const HASH_EXAMPLE = 'bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=';
const CHECKPOINT_EXAMPLE =
  'firmledger/ledger.example.com\n8\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n\n' +
  '\u2014 firmledger/ledger.example.com 0x3bD3Z1m8f5m0Kq2W0Wl0yD2b0i8p8l0c1o3l4T5n6k7v8b9C0x1Y2z3A4b5C6d7E8f9G0h1I2j3K4l5M6n7O8p9Q==\n';

/** 400 texts of bad proof parameters. */
export const ProofParamMessages = {
  seq: 'seq must be a whole number from 1',
  treeSize: wholeNumberMessages('tree_size', MAX_ID),
  from: wholeNumberMessages('from', MAX_ID),
  fromRequired: 'from is required',
  to: wholeNumberMessages('to', MAX_ID),
  checkpoint: 'checkpoint must be a string',
  checkpointRequired: 'checkpoint is required',
  checkpointLength: 'checkpoint must be at most 16384 characters',
} as const;

/** A `:seq` path parameter: decimal digits, at least 1 (one beyond every entry names nothing: 404). */
@Injectable()
export class SeqParamPipe implements PipeTransform<string, number> {
  transform(value: string, metadata?: ArgumentMetadata): number {
    if (!/^\d{1,15}$/.test(value) || Number(value) < 1) throw new FieldException(metadata?.data ?? 'seq', ProofParamMessages.seq);
    return Number(value);
  }
}

/** `?tree_size=`: the tree to prove in; default the published checkpoint's. */
export class TreeSizeQuery {
  @ApiPropertyOptional({
    description: 'tree size to prove against; default: the published checkpoint’s',
    type: 'integer',
    minimum: 1,
    example: 8,
  })
  @IsOptional()
  @WholeNumberQueryField(MAX_ID, ProofParamMessages.treeSize)
  tree_size?: number;
}

/** `?from=&to=` of a consistency proof. */
export class ConsistencyQuery {
  @ApiProperty({ description: 'the smaller tree size (at least 1)', type: 'integer', minimum: 1, example: 4 })
  @IsDefined({ message: ProofParamMessages.fromRequired })
  @WholeNumberQueryField(MAX_ID, ProofParamMessages.from)
  from: number;

  @ApiPropertyOptional({
    description: 'the larger tree size; default: the published checkpoint’s',
    type: 'integer',
    minimum: 1,
    example: 8,
  })
  @IsOptional()
  @WholeNumberQueryField(MAX_ID, ProofParamMessages.to)
  to?: number;
}

/** Body of `POST {bc_url}/checkpoint/cosignature`: a checkpoint note carrying a witness's cosignature line. */
export class CosignatureDto {
  @ApiProperty({
    description:
      'The checkpoint as the log signed it (its text; the log’s own signature line may be kept) with the witness’s ' +
      'tlog-cosignature line(s) (docs/decisions.md §7).',
    example: CHECKPOINT_EXAMPLE,
  })
  @IsDefined({ message: ProofParamMessages.checkpointRequired })
  @MaxLength(16_384, { message: ProofParamMessages.checkpointLength })
  @IsString({ message: ProofParamMessages.checkpoint })
  checkpoint: string;
}

/** An inclusion proof of one ledger entry in the Merkle tree (RFC 9162). */
export class InclusionProofResponse {
  @ApiProperty({ description: 'sequence number of the entry', example: 3 })
  seq: number;

  @ApiProperty({ description: 'its leaf index in the tree: seq - 1', example: 2 })
  leaf_index: number;

  @ApiProperty({ description: 'size of the tree the proof is for', example: 8 })
  tree_size: number;

  @ApiProperty({ description: 'RFC 9162 leaf hash, base64: SHA-256(0x00 || leaf text)', example: HASH_EXAMPLE })
  leaf_hash: string;

  @ApiProperty({ description: 'the audit path, base64 hashes from the leaf up', type: [String], example: [HASH_EXAMPLE] })
  proof: string[];

  @ApiProperty({
    description:
      'the signed checkpoint of tree_size (C2SP tlog-checkpoint note, with witness cosignatures), or null when none was signed at that size',
    type: String,
    nullable: true,
    example: CHECKPOINT_EXAMPLE,
  })
  checkpoint: string | null;
}

/** The ledger entry a proof is about. */
export class ProvenEntry {
  @ApiProperty({ example: 3 }) seq: number;
  @ApiProperty({ example: 1 }) tenant_id: number;
  @ApiProperty({ example: 'firmware.published' }) type: string;
  @ApiProperty({ example: 'firmware:1' }) subject: string;

  @ApiProperty({
    description: 'the recorded state (parsed from its canonical JSON)',
    type: 'object',
    additionalProperties: true,
    example: { cid: 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o', sha256: 'c0ffee…', version: '1.1.0' },
  })
  payload: unknown;

  @ApiProperty({ description: 'ISO 8601 UTC', example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ type: String, nullable: true, example: 'user:alice' }) actor: string | null;
  @ApiProperty({ example: '0'.repeat(64) }) prev_hash: string;
  @ApiProperty({ description: 'SHA-256 of leaf_text, hex', example: '3f5a0c9e7b1d24680ace13579bdf02468ace13579bdf02468ace13579bdf0246' })
  hash: string;
}

/** An entry with its inclusion proof, and the exact text its leaf hashes. */
export class EntryProofResponse extends InclusionProofResponse {
  @ApiProperty({ type: ProvenEntry })
  entry: ProvenEntry;

  @ApiProperty({
    description:
      'the exact text the leaf covers: prev_hash, a newline, and the canonical JSON (RFC 8785) of seq, tenantId, type, subject, ' +
      'payload (itself canonical JSON text), createdAt (epoch ms) and actor when set. SHA-256(0x00 || its UTF-8 bytes) is leaf_hash; ' +
      'SHA-256 of it is the entry hash.',
    example: `${'0'.repeat(64)}\n{"createdAt":1763719200000,"payload":"{\\"cid\\":\\"Qm…\\"}","seq":3,"subject":"firmware:1","tenantId":1,"type":"firmware.published"}`,
  })
  leaf_text: string;
}

/** A consistency proof between two tree sizes (RFC 9162). */
export class ConsistencyProofResponse {
  @ApiProperty({ example: 4 }) from: number;
  @ApiProperty({ example: 8 }) to: number;
  @ApiProperty({ description: 'root of the first `from` entries, base64', example: HASH_EXAMPLE }) from_root: string;
  @ApiProperty({ description: 'root of the first `to` entries, base64', example: HASH_EXAMPLE }) to_root: string;
  @ApiProperty({ description: 'the consistency proof, base64 hashes', type: [String], example: [HASH_EXAMPLE] }) proof: string[];
}

const b64 = (hash: Buffer): string => hash.toString('base64');

export function inclusionProofResponse(view: InclusionView): InclusionProofResponse {
  return {
    seq: view.seq,
    leaf_index: view.leafIndex,
    tree_size: view.treeSize,
    leaf_hash: b64(view.leafHash),
    proof: view.proof.map(b64),
    checkpoint: view.checkpoint,
  };
}

export function entryProofResponse(view: EntryProofView): EntryProofResponse {
  const { entry } = view;
  let payload: unknown = entry.payload;
  try {
    payload = JSON.parse(entry.payload) as unknown;
  } catch {
    // an altered entry: its text as stored
  }
  return {
    ...inclusionProofResponse(view),
    entry: {
      seq: entry.seq,
      tenant_id: entry.tenantId,
      type: entry.type,
      subject: entry.subject,
      payload,
      created_at: new Date(entry.createdAt).toISOString(),
      actor: entry.actor,
      prev_hash: entry.prevHash,
      hash: entry.hash,
    },
    leaf_text: view.leafText,
  };
}

export function consistencyProofResponse(view: ConsistencyView): ConsistencyProofResponse {
  return { from: view.from, to: view.to, from_root: b64(view.fromRoot), to_root: b64(view.toRoot), proof: view.proof.map(b64) };
}
