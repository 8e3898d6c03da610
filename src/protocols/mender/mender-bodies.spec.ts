import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MenderMessages, readAuthRequest, readInventory, readLog, readNextRequest, readStatus } from './mender-bodies.js';

describe(readInventory.name, () => {
  it('keeps text as it is, numbers as decimal text, lists as JSON text, and cuts long values', () => {
    assert.deepEqual(
      readInventory([
        { name: 'artifact_name', value: 'release-1' },
        { name: 'cpus', value: 4 },
        { name: 'ipv4', value: ['10.0.0.2/24', '10.0.0.3/24'] },
        { name: 'kernel', value: 'k'.repeat(2000) },
        { name: 'cpus', value: 8 },
      ]),
      { artifact_name: 'release-1', cpus: '8', ipv4: '["10.0.0.2/24","10.0.0.3/24"]', kernel: `${'k'.repeat(1023)}…` },
    );
  });

  it('refuses what is not a list of named values', () => {
    for (const body of [
      {},
      null,
      [{ name: '' }],
      [{ name: 'a' }],
      [{ name: 'a', value: { b: 1 } }],
      [{ name: 'a'.repeat(129), value: '' }],
      ['a'],
    ]) {
      assert.deepEqual(readInventory(body), { error: MenderMessages.inventory }, JSON.stringify(body));
    }
  });
});

describe(readNextRequest.name, () => {
  it('reads the artifact the device runs, refusing a name the device table cannot hold', () => {
    assert.deepEqual(readNextRequest({ artifact_name: 'release-1', device_type: 'rpi4', extra: 'x' }), {
      artifactName: 'release-1',
      deviceType: 'rpi4',
    });
    assert.deepEqual(readNextRequest({ artifact_name: 'release-1' }), { artifactName: 'release-1', deviceType: null });
    assert.deepEqual(readNextRequest(undefined), { error: MenderMessages.deviceProvides });
    assert.deepEqual(readNextRequest({ device_type: 'rpi4' }), { error: MenderMessages.deviceProvides });
    assert.deepEqual(readNextRequest({ artifact_name: '' }), { error: MenderMessages.artifactName });
    assert.deepEqual(readNextRequest({ artifact_name: 'a\nb' }), { error: MenderMessages.artifactName });
  });
});

describe(readStatus.name, () => {
  it('knows the statuses of a deployment, and only those', () => {
    assert.equal(readStatus({ status: 'already-installed', substate: 'x' }), 'already-installed');
    assert.deepEqual(readStatus({ status: 'done' }), { error: MenderMessages.status });
    assert.deepEqual(readStatus([]), { error: MenderMessages.status });
  });
});

describe(readAuthRequest.name, () => {
  it('takes a missing tenant token as none, trimmed as the client trims it', () => {
    assert.deepEqual(readAuthRequest({ id_data: '{}', pubkey: 'k' }), { idData: '{}', publicKey: 'k', tenantToken: '' });
    assert.deepEqual(readAuthRequest({ id_data: '{}', pubkey: 'k', tenant_token: ' t ' }), {
      idData: '{}',
      publicKey: 'k',
      tenantToken: 't',
    });
    assert.deepEqual(readAuthRequest({ id_data: {}, pubkey: 'k' }), { error: MenderMessages.authRequest });
  });
});

describe(readLog.name, () => {
  it('reads the client’s log lines and cuts very long ones', () => {
    const lines = readLog({
      messages: [
        { level: 'error', message: 'm'.repeat(5000), timestamp: '2026-12-01T09:00:00Z' },
        { level: 'info', message: 'x' },
      ],
    });
    assert.ok(Array.isArray(lines));
    assert.equal(lines[0].message.length, 4096);
    assert.deepEqual(lines[1], { level: 'info', message: 'x', timestamp: '' });
    assert.deepEqual(readLog({ messages: [{ level: 'info' }] }), { error: MenderMessages.log });
  });
});
