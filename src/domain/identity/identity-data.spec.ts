import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalIdentityData, identityIdentifier, parseIdentityData } from './identity-data.js';

describe(parseIdentityData.name, () => {
  it('reads a JSON object of strings or lists of strings, and nothing else', () => {
    assert.deepEqual(parseIdentityData('{"mac":"02:00:00:00:00:01","ip":["10.0.0.2","10.0.0.3"]}'), {
      mac: '02:00:00:00:00:01',
      ip: ['10.0.0.2', '10.0.0.3'],
    });
    for (const text of [
      '',
      '{',
      '[]',
      '"mac"',
      '{}',
      '{"mac":1}',
      '{"mac":null}',
      '{"ip":[]}',
      '{"ip":[1]}',
      `{"a":"${'x'.repeat(4100)}"}`,
    ]) {
      assert.equal(parseIdentityData(text), null, text.slice(0, 30));
    }
  });
});

describe(canonicalIdentityData.name, () => {
  it('writes the same identity the same way whatever its key order and spacing', () => {
    const a = parseIdentityData('{"serial":"SN-1", "mac":"02:00:00:00:00:01"}')!;
    const b = parseIdentityData('{"mac":"02:00:00:00:00:01","serial":"SN-1"}')!;
    assert.equal(canonicalIdentityData(a), '{"mac":"02:00:00:00:00:01","serial":"SN-1"}');
    assert.equal(canonicalIdentityData(a), canonicalIdentityData(b));
  });
});

describe(identityIdentifier.name, () => {
  it('names a device by its mac, canonical, when it has one', () => {
    assert.equal(identityIdentifier({ mac: '02-00-00-0a-0b-0c', serial: 'SN-1' }), '02:00:00:0A:0B:0C');
  });

  it('names a device without a usable mac by a digest of its whole identity, the same for the same identity', () => {
    const serial = identityIdentifier({ serial: 'SN-1', board: 'rpi4' });
    assert.match(serial, /^mender-[0-9a-f]{32}$/);
    assert.equal(identityIdentifier({ board: 'rpi4', serial: 'SN-1' }), serial);
    assert.notEqual(identityIdentifier({ serial: 'SN-2', board: 'rpi4' }), serial);
    assert.match(identityIdentifier({ mac: 'not a mac' }), /^mender-/);
    assert.match(identityIdentifier({ mac: ['02:00:00:00:00:01', '02:00:00:00:00:02'] }), /^mender-/, 'two macs name no one device');
  });
});
