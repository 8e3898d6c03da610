import { DataSource } from 'typeorm';
import { query } from '#src/platform/database/sql.js';
import type { TestApp, TestTenant } from './harness.js';

/**
 * Inserts `count` devices of the tenant's device key straight into the device table, 400 a
 * statement, through the app's own connection (`$n` placeholders work on every driver there):
 * bulk rows without ledger entries, for specs of what reads only the device table (reports).
 * Macs `AC:67:B2:9<i % 10>:<i / 256>:<i % 256>`; every seventh name holds XML specials and an umlaut.
 */
export async function insertDevices(app: TestApp, tenant: TestTenant, count: number): Promise<void> {
  const manager = app.server.app.get(DataSource).manager;
  for (let start = 0; start < count; start += 400) {
    const rows = Array.from({ length: Math.min(400, count - start) }, (_, n) => start + n);
    await query(
      manager,
      `INSERT INTO device (tenant_id, mac, name, firmware_version, device_key_id, device_type, created_at) VALUES ${rows
        .map((_, r) => `(${[1, 2, 3, 4, 5, 6].map((c) => `$${r * 6 + c}`).join(', ')}, 0)`)
        .join(', ')}`,
      rows.flatMap((i) => [
        tenant.id,
        `AC:67:B2:9${i % 10}:${(i >> 8).toString(16).padStart(2, '0').toUpperCase()}:${(i & 255).toString(16).padStart(2, '0').toUpperCase()}`,
        i % 7 === 0 ? `Gerät ${i} & <Co>` : `device ${i}`,
        `1.${i % 13}`,
        tenant.deviceKeyId,
        tenant.deviceType,
      ]),
    );
  }
}
