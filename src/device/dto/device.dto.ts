import { DeviceNameField, FirmwareVersionField, MacField } from '#src/common/dto-fields.js';

/** Body of `POST /api/device/register` (INTERFACE.md). Extra fields are ignored (CONTRACT.md §1). */
export class RegisterDeviceDto {
  /** Hardware address, any accepted notation. */
  @MacField()
  mac: string;

  /** Version the device runs. */
  @FirmwareVersionField()
  firmware_version: string;

  /** Defaults to the mac when missing (CONTRACT.md §1). */
  @DeviceNameField()
  name?: string;
}

/** Body of `DELETE /api/device/`. */
export class DeleteDeviceDto {
  @MacField()
  mac: string;
}

/** A device in read responses: keys in this order, `firmware-version` hyphenated (INTERFACE.md, CONTRACT.md §6). */
export interface DeviceResponse {
  mac: string;
  name: string;
  'firmware-version': string;
}

/** Response schema of one device for fastify's serializer: the keys of {@link DeviceResponse} in order. */
export const DEVICE_RESPONSE_SCHEMA = {
  type: 'object',
  properties: { mac: { type: 'string' }, name: { type: 'string' }, 'firmware-version': { type: 'string' } },
} as const;

/** The outcome object of many endpoints (INTERFACE.md "Message object"). */
export interface MessageResponse {
  message: string;
}
