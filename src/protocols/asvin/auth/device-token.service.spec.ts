import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { createSecretKey } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import type { AppConfig } from '#src/platform/config/app-config.js';
import type { TenantRepository } from '#src/domain/tenant/tenant.repository.js';
import { DeviceTokenService, signHs256 } from './device-token.service.js';

describe(DeviceTokenService.name, () => {
  let jwt: JwtService;
  let key: { id: number; tenantId: number; deviceType: string; revokedAt: number | null } | null;
  let keyLookups: number;
  let tokens: DeviceTokenService;

  beforeEach(() => {
    jwt = new JwtService({ secret: createSecretKey(Buffer.from('s'.repeat(32))), signOptions: { algorithm: 'HS256' } });
    key = { id: 7, tenantId: 3, deviceType: 'ESP32', revokedAt: null };
    keyLookups = 0;
    const tenants = {
      findTokenKey: (id: number) => {
        keyLookups++;
        return Promise.resolve(key && key.id === id ? { ...key } : null);
      },
    } as unknown as TenantRepository;
    tokens = new DeviceTokenService(jwt, tenants, { jwtTtlSeconds: 3600, jwtSecret: Buffer.from('s'.repeat(32)) } as AppConfig);
  });

  afterEach(() => mock.restoreAll());

  it('signs exactly as jsonwebtoken does', () => {
    const claims = { sub: '7', tid: 3, iat: 1763700000, exp: 1763703600, jti: '0b3c8a4e-1f2d-4c5b-9a6e-7d8f9e0a1b2c' };
    assert.equal(signHs256(claims, createSecretKey(Buffer.from('s'.repeat(32)))), jwt.sign({ ...claims }));
    const issued = tokens.issue(7, 3, 1763700000_123);
    const payload = JSON.parse(Buffer.from(issued.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(payload), ['sub', 'tid', 'iat', 'exp', 'jti']);
    assert.equal(jwt.sign({ ...payload }), issued);
    assert.deepEqual(jwt.verify(issued, { algorithms: ['HS256'], ignoreExpiration: true }), payload);
  });

  it('verifies a token once, then answers it from the cache, checking the device key every time', async () => {
    const token = tokens.issue(7, 3, Date.now());
    const verify = mock.method(jwt, 'verify');
    const principal = { tenantId: 3, deviceKeyId: 7, deviceType: 'ESP32' };
    assert.deepEqual(await tokens.verify(token), principal);
    assert.deepEqual(await tokens.verify(token), principal);
    assert.deepEqual(await tokens.verify(token), principal);
    assert.equal(verify.mock.callCount(), 1, 'signature checked once');
    assert.equal(keyLookups, 3, 'device key looked up on every request');
  });

  it('refuses a cached token at once when its device key is revoked or gone', async () => {
    const token = tokens.issue(7, 3, Date.now());
    assert.ok(await tokens.verify(token));
    key!.revokedAt = Date.now();
    assert.equal(await tokens.verify(token), null, 'revoked');
    key = null;
    assert.equal(await tokens.verify(token), null, 'gone');
  });

  it('refuses a cached token once it expires', async () => {
    const issuedMs = Date.now();
    const token = tokens.issue(7, 3, issuedMs);
    assert.ok(await tokens.verify(token));
    mock.method(Date, 'now', () => issuedMs + 3600 * 1000 + 1000);
    assert.equal(await tokens.verify(token), null);
  });

  it('never caches a refused token', async () => {
    const token = tokens.issue(7, 3, Date.now());
    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    const verify = mock.method(jwt, 'verify');
    assert.equal(await tokens.verify(forged), null);
    assert.equal(await tokens.verify(forged), null);
    assert.equal(verify.mock.callCount(), 2);
    const expired = tokens.issue(7, 3, Date.now() - 7200 * 1000);
    assert.equal(await tokens.verify(expired), null);
    assert.equal(await tokens.verify(expired), null);
  });
});
