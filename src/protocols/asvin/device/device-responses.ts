import type { DeviceResponse } from '#src/protocols/asvin/device/dto/device.dto.js';
import type { Device } from '#src/domain/device/device.entity.js';

/*
 * The device shape of the device API (`/api/device/…`, `/api/report/…`) built from entities,
 * one function per shape, in the field names and order devices read (docs/device-interface.md).
 * Messages such as `Successfully inserted!` are the services' constants, not shapes.
 */

/** A device in read answers and reports: `mac`, `name`, `firmware-version` (hyphenated), in that order. */
export function deviceResponse(device: Pick<Device, 'mac' | 'name' | 'firmwareVersion'>): DeviceResponse {
  return { mac: device.mac, name: device.name, 'firmware-version': device.firmwareVersion };
}
