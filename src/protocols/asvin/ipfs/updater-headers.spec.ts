import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readUpdaterHeaders } from './updater-headers.js';

describe(readUpdaterHeaders.name, () => {
  it('reads the ESP8266 updater: station mac (canonical) and free space, bytes', () => {
    assert.deepEqual(readUpdaterHeaders({ 'x-esp8266-sta-mac': '5C:CF:7F:0A:0B:0C', 'x-esp8266-free-space': '1044464' }), {
      mac: '5C:CF:7F:0A:0B:0C',
      freeSpace: { bytes: 1_044_464, header: 'x-ESP8266-free-space' },
    });
  });

  it('reads the ESP32 updater the same way, any mac notation', () => {
    assert.deepEqual(readUpdaterHeaders({ 'x-esp32-sta-mac': '24-0a-c4-12-34-56', 'x-esp32-free-space': ' 1310720 ' }), {
      mac: '24:0A:C4:12:34:56',
      freeSpace: { bytes: 1_310_720, header: 'x-ESP32-free-space' },
    });
  });

  it('reports nothing for a client without updater headers (Pycom, curl)', () => {
    assert.deepEqual(readUpdaterHeaders({ 'content-type': 'application/json' }), { mac: null, freeSpace: null });
  });

  it('ignores values that do not parse, as if not sent', () => {
    for (const [mac, free] of [
      ['not a mac', 'lots'],
      ['', '-5'],
      ['AC:67:B2:01:02', '1.5'],
      ['AC:67:B2:01:02:03:04', '1e6'],
    ]) {
      assert.deepEqual(
        readUpdaterHeaders({ 'x-esp8266-sta-mac': mac, 'x-esp8266-free-space': free }),
        { mac: null, freeSpace: null },
        `${mac} ${free}`,
      );
    }
  });

  it('takes the first value of a repeated header', () => {
    assert.equal(readUpdaterHeaders({ 'x-esp32-free-space': ['100', '999999'] }).freeSpace?.bytes, 100);
  });
});
