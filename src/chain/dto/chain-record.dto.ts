/** `GET {bc_url}/device/:id` answer (INTERFACE.md "Blockchain device record", CONTRACT.md §7). */
export interface ChainDeviceRecord {
  mac: string;
  /** Id of the tenant's published firmware matching the device's version and type, else `""`. */
  fwId: string;
  /** Device type of the key that registered the device. */
  dType: string;
}

/** `GET {bc_url}/firmware/:id` answer (INTERFACE.md "Blockchain firmware record"). */
export interface ChainFirmwareRecord {
  /** Lowercase hex MD5 of the binary. */
  md: string;
  /** CIDv0 of the binary. */
  cid: string;
  version: string;
}
