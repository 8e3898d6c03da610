import { ApiProperty } from '@nestjs/swagger';
import { EntryProofResponse } from '#src/adapters/ledger/dto/proof.dto.js';

/** The `format` of a proof bundle; a verifier refuses any other. */
export const PROOF_BUNDLE_FORMAT = 'firmledger-proof-bundle/v1';

/** The firmware a bundle is about, as the server holds it (the verifier compares it with the ledger entry). */
export class BundleFirmware {
  @ApiProperty({ example: 1 }) id: number;
  @ApiProperty({ example: '1.1.0' }) version: string;
  @ApiProperty({ example: 'ESP32' }) device_type: string;
  @ApiProperty({ description: 'size of the binary, bytes', example: 700000 }) size: number;
  @ApiProperty({ description: 'lowercase hex SHA-256 of the binary', example: 'c0ffee'.padEnd(64, '0') }) sha256: string;
  @ApiProperty({ description: 'lowercase hex MD5 of the binary', example: '6f5902ac237024bdd0c176cb93063dc4' }) md5: string;
  @ApiProperty({ description: 'CIDv0 of the binary: its TUF target name', example: 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o' })
  cid: string;
}

/** The signed TUF metadata of the firmware's repository (its tenant and device type). */
export class BundleTuf {
  @ApiProperty({ description: 'the target name: the firmware’s CID', example: 'QmT78zSuBmuS4z925WZfrqQ1qHaJ56DQaTfyMUF7F8ff5o' })
  target: string;

  @ApiProperty({
    description: 'every root version, oldest first (signed TUF root metadata): walk them from the root you trust',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [{ signed: { _type: 'root', version: 1 }, signatures: [] }],
  })
  root: unknown[];

  @ApiProperty({
    description: 'the newest signed targets metadata; `signed.targets[target]` is the firmware’s length, SHA-256 and version',
    type: 'object',
    additionalProperties: true,
    example: { signed: { _type: 'targets', version: 3 }, signatures: [] },
  })
  targets: unknown;

  @ApiProperty({ description: 'the newest signed snapshot metadata', type: 'object', additionalProperties: true, example: {} })
  snapshot: unknown;

  @ApiProperty({ description: 'the newest signed timestamp metadata', type: 'object', additionalProperties: true, example: {} })
  timestamp: unknown;
}

/**
 * Everything needed to check a firmware record with no network (`GET {bc_url}/firmware/:id/bundle`):
 * the firmware's ledger entry, the exact text its Merkle leaf covers, the inclusion proof against
 * the published checkpoint (signed by the log, with the witnesses' cosignatures), and the TUF
 * metadata that names the same binary. `scripts/verify-proof.py` checks it (docs/transparency.md).
 */
export class ProofBundleResponse extends EntryProofResponse {
  @ApiProperty({ description: `always \`${PROOF_BUNDLE_FORMAT}\``, example: PROOF_BUNDLE_FORMAT })
  format: string;

  @ApiProperty({ type: BundleFirmware })
  firmware: BundleFirmware;

  @ApiProperty({ type: BundleTuf })
  tuf: BundleTuf;
}
