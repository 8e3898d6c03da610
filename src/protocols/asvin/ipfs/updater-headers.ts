import type { IncomingHttpHeaders } from 'node:http';
import { canonicalMac } from '#src/platform/common/mac.js';

/**
 * What an OTA updater says about the device in its request headers. The ESP8266 updater
 * (`ESP8266httpUpdate`) sends `x-ESP8266-STA-MAC`, `x-ESP8266-free-space` and more; the ESP32 one
 * (`HTTPUpdate`) the same names with `x-ESP32-`. Pycom's OTA code sends none of them.
 */
export interface UpdaterReport {
  /** Canonical station mac, when a STA-MAC header holds a hardware address. */
  mac: string | null;
  /** Free space for a new sketch, when a free-space header holds a whole number of bytes. */
  freeSpace: { bytes: number; header: string } | null;
}

/** Header families of the updaters, lowercase as Node delivers header names. */
const FAMILIES = [
  { prefix: 'x-esp8266-', name: 'x-ESP8266-' },
  { prefix: 'x-esp32-', name: 'x-ESP32-' },
] as const;

/**
 * Reads the updater headers of a download request. Values that do not parse are ignored, as if
 * not sent: they only inform, and the updater checks its free space itself as well.
 */
export function readUpdaterHeaders(headers: IncomingHttpHeaders): UpdaterReport {
  let mac: string | null = null;
  let freeSpace: UpdaterReport['freeSpace'] = null;
  for (const family of FAMILIES) {
    const staMac = first(headers[`${family.prefix}sta-mac`]);
    mac ??= staMac === undefined ? null : canonicalMac(staMac.trim());
    const free = first(headers[`${family.prefix}free-space`])?.trim();
    if (freeSpace === null && free !== undefined && /^\d{1,15}$/.test(free)) {
      freeSpace = { bytes: Number(free), header: `${family.name}free-space` };
    }
  }
  return { mac, freeSpace };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
