/** One device in a report, keys in the documented order (INTERFACE.md: mac, name, firmware-version). */
export interface DeviceRow {
  mac: string;
  name: string;
  'firmware-version': string;
}

/** What a report is about. */
export interface ReportMeta {
  tenantName: string;
  generatedAt: Date;
}
