import type { ChainDeviceRecord, ChainFirmwareRecord } from '#src/protocols/asvin/chain/dto/chain-record.dto.js';

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
