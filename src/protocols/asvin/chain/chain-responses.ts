import type { ChainDeviceRecord, ChainFirmwareRecord } from '#src/protocols/asvin/chain/dto/chain-record.dto.js';
import { entryProofResponse } from '#src/adapters/ledger/dto/proof.dto.js';
import { PROOF_BUNDLE_FORMAT, type ProofBundleResponse } from './dto/proof-bundle.dto.js';
import type { EntryProofView } from '#src/domain/ledger/ledger-proof.service.js';
import type { FirmwareView } from '#src/domain/firmware/firmware.service.js';
import type { TufMetadataSet } from '#src/domain/tuf/tuf.service.js';

/** A firmware's offline proof bundle: its ledger entry with the proof, the firmware, its TUF metadata. */
export interface FirmwareBundleView {
  proof: EntryProofView;
  firmware: FirmwareView;
  tuf: TufMetadataSet;
}

/*
 * Every answer shape of the blockchain lookup API (`/device/…`, `/firmware/…`), built here from
 * the ledger's state: one function per shape, in the field names devices read
 * (docs/device-interface.md).
 */

/**
 * A device record: `mac` canonical, `fwId` the decimal id of the tenant's firmware of the
 * device's version and type (`""` when there is none), `dType` the device type.
 */
export function chainDeviceRecord(mac: string, firmwareId: number | null, deviceType: string): ChainDeviceRecord {
  return { mac, fwId: firmwareId === null ? '' : String(firmwareId), dType: deviceType };
}

/** A firmware record: `md` the lowercase hex MD5 of the binary, its CIDv0, its version. */
export function chainFirmwareRecord(firmware: { md5: string; cid: string; version: string }): ChainFirmwareRecord {
  return { md: firmware.md5, cid: firmware.cid, version: firmware.version };
}

/** A firmware's offline proof bundle ({@link ProofBundleResponse}): the entry proof, the firmware, its TUF metadata. */
export function proofBundleResponse(bundle: FirmwareBundleView): ProofBundleResponse {
  const { firmware, tuf } = bundle;
  return {
    format: PROOF_BUNDLE_FORMAT,
    ...entryProofResponse(bundle.proof),
    firmware: {
      id: firmware.id,
      version: firmware.version,
      device_type: firmware.deviceType,
      size: firmware.size,
      sha256: firmware.sha256,
      md5: firmware.md5,
      cid: firmware.cid,
    },
    tuf: { target: firmware.cid, root: tuf.root, targets: tuf.targets, snapshot: tuf.snapshot, timestamp: tuf.timestamp },
  };
}
