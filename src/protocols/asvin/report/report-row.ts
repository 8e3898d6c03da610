import type { DeviceResponse } from '#src/protocols/asvin/device/dto/device.dto.js';

/** One device in a report: the device API's device shape (`mac`, `name`, `firmware-version`, in that order). */
export type DeviceRow = DeviceResponse;

/** What a report is about. */
export interface ReportMeta {
  tenantName: string;
  generatedAt: Date;
}
