import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { COSIGNATURE_ED25519, ED25519, generateSigner } from '#src/platform/crypto/signed-note.js';
import { ConfigError } from './config-values.js';
import { loadConfig, prepareDataDir } from './app-config.js';

/** Asserts that `env` is refused with a ConfigError whose message names `variable`. */
function assertRefused(env: Record<string, string>, variable: string): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
      assert.ok(error.message.includes(variable), `message should name ${variable}: ${error.message}`);
      return true;
    },
  );
}

describe(loadConfig.name, () => {
  describe('defaults (docs/decisions.md §2, §4)', () => {
    const config = loadConfig({});

    it('AUTH_URL http://0.0.0.0:3001, VC_URL :3002, BC_URL :3003', () => {
      assert.equal(config.urls.auth.href, 'http://0.0.0.0:3001/');
      assert.equal(config.urls.vc.href, 'http://0.0.0.0:3002/');
      assert.equal(config.urls.bc.href, 'http://0.0.0.0:3003/');
    });

    it('OPERATOR_URL http://127.0.0.1:3004 (not where devices connect)', () => {
      assert.equal(config.urls.operator.href, 'http://127.0.0.1:3004/');
    });

    it('IPFS_URL http://0.0.0.0:3005, TOOLS_URL http://0.0.0.0:3006', () => {
      assert.equal(config.urls.ipfs.href, 'http://0.0.0.0:3005/');
      assert.equal(config.urls.tools.href, 'http://0.0.0.0:3006/');
    });

    it('no TLS: no certificate for any component, none loaded', () => {
      for (const files of Object.values(config.tls)) assert.deepEqual(files, { cert: undefined });
      assert.deepEqual(config.certificates, {});
    });

    it('JWT_TTL_SECONDS 3600', () => assert.equal(config.jwtTtlSeconds, 3600));
    it('AUTH_MAX_SKEW_SECONDS 300', () => assert.equal(config.authMaxSkewSeconds, 300));
    it('LOGIN_RATE_LIMIT 10', () => assert.equal(config.loginRateLimit, 10));
    it('LOGIN_RATE_WINDOW_SECONDS 60', () => assert.equal(config.loginRateWindowSeconds, 60));
    it('TRUST_PROXY off', () => assert.equal(config.trustProxy, false));

    it('no JWT_SECRET: left empty for the data directory to supply a random one', () => {
      assert.equal(config.jwtSecret.length, 0);
    });

    it('SQLite through better-sqlite3 with synchronous NORMAL (bench/RESULTS.md)', () => {
      assert.equal(config.sqliteDriver, 'better-sqlite3');
      assert.equal(config.sqliteSynchronous, 'NORMAL');
    });

    it('database in ./data/firmledger.sqlite', () => {
      assert.equal(config.dataDir, resolve('data'));
      assert.equal(config.databasePath, join(resolve('data'), 'firmledger.sqlite'));
    });

    it('no DATABASE_URL or REDIS_URL: SQLite, and login bookkeeping in the database', () => {
      assert.equal(config.databaseUrl, undefined);
      assert.equal(config.redisUrl, undefined);
    });

    it('treats empty and blank variables as unset', () => {
      const blank = loadConfig({ AUTH_URL: '', LOGIN_RATE_LIMIT: '', JWT_TTL_SECONDS: '   ', JWT_SECRET: '' });
      assert.equal(blank.urls.auth.href, 'http://0.0.0.0:3001/');
      assert.equal(blank.loginRateLimit, 10);
      assert.equal(blank.jwtTtlSeconds, 3600);
      assert.equal(blank.jwtSecret.length, 0);
    });
  });

  describe('overrides', () => {
    it('reads SQLITE_DRIVER and SQLITE_SYNCHRONOUS (any case)', () => {
      const config = loadConfig({ SQLITE_DRIVER: 'sqlite3', SQLITE_SYNCHRONOUS: 'full' });
      assert.equal(config.sqliteDriver, 'sqlite3');
      assert.equal(config.sqliteSynchronous, 'FULL');
    });

    it('reads base URLs with a path prefix', () => {
      const config = loadConfig({ AUTH_URL: 'http://127.0.0.1:8080/auth', VC_URL: 'http://[::1]:8080/vc/' });
      assert.equal(config.urls.auth.port, '8080');
      assert.equal(config.urls.auth.pathname, '/auth');
      assert.equal(config.urls.vc.hostname, '[::1]');
      assert.equal(config.urls.vc.pathname, '/vc/');
    });

    it('reads DATABASE_URL (postgres: or postgresql:) and REDIS_URL (redis: or rediss:)', () => {
      const config = loadConfig({ DATABASE_URL: 'postgres://fl:secret@db.internal:5432/firmledger', REDIS_URL: 'redis://cache:6379/2' });
      assert.equal(config.databaseUrl, 'postgres://fl:secret@db.internal:5432/firmledger');
      assert.equal(config.redisUrl, 'redis://cache:6379/2');
      assert.equal(
        loadConfig({ DATABASE_URL: 'postgresql:///firmledger?host=/run/postgresql' }).databaseUrl?.startsWith('postgresql:'),
        true,
      );
      assert.equal(loadConfig({ REDIS_URL: 'rediss://:pw@cache:6380' }).redisUrl, 'rediss://:pw@cache:6380');
      assert.equal(config.redisKeyPrefix, 'firmledger:');
    });

    it('reads whole numbers', () => {
      const config = loadConfig({
        JWT_TTL_SECONDS: '60',
        AUTH_MAX_SKEW_SECONDS: '30',
        LOGIN_RATE_LIMIT: '25',
        LOGIN_RATE_WINDOW_SECONDS: '10',
      });
      assert.deepEqual(
        [config.jwtTtlSeconds, config.authMaxSkewSeconds, config.loginRateLimit, config.loginRateWindowSeconds],
        [60, 30, 25, 10],
      );
    });

    it('takes a JWT_SECRET of at least 32 bytes as its UTF-8 bytes', () => {
      const secret = 'x'.repeat(32);
      assert.deepEqual(loadConfig({ JWT_SECRET: secret }).jwtSecret, Buffer.from(secret, 'utf8'));
    });

    it('puts the database under DATA_DIR', () => {
      const config = loadConfig({ DATA_DIR: '/tmp/firmledger-spec' });
      assert.equal(config.databasePath, '/tmp/firmledger-spec/firmledger.sqlite');
    });

    it('accepts an explicit port 80 (a base URL names a port, docs/decisions.md §2)', () => {
      const config = loadConfig({ AUTH_URL: 'http://0.0.0.0:80' });
      assert.equal(config.urls.auth.hostname, '0.0.0.0');
    });
  });

  describe('a bad value throws ConfigError naming the variable', () => {
    const cases: [string, string][] = [
      ['LOGIN_RATE_LIMIT', 'abc'],
      ['LOGIN_RATE_LIMIT', '0'],
      ['LOGIN_RATE_LIMIT', '-5'],
      ['LOGIN_RATE_LIMIT', '1.5'],
      ['LOGIN_RATE_LIMIT', '10 per minute'],
      ['LOGIN_RATE_WINDOW_SECONDS', 'abc'],
      ['LOGIN_RATE_WINDOW_SECONDS', '0'],
      ['JWT_TTL_SECONDS', '0'],
      ['JWT_TTL_SECONDS', '1h'],
      ['JWT_TTL_SECONDS', '99999999999999999999'],
      ['AUTH_MAX_SKEW_SECONDS', '-1'],
      ['AUTH_MAX_SKEW_SECONDS', 'NaN'],
      ['AUTH_MAX_SKEW_SECONDS', '1e3'],
      ['VC_URL', 'ftp://x:1'],
      ['AUTH_URL', 'https://0.0.0.0:3001'],
      ['IPFS_URL', 'https://0.0.0.0:3005'],
      ['TOOLS_URL', 'not a url'],
      ['AUTH_URL', 'not a url'],
      ['AUTH_URL', '0.0.0.0:3001'],
      ['BC_URL', 'http://0.0.0.0:3003/?x=1'],
      ['BC_URL', 'http://user:pw@0.0.0.0:3003'],
      ['OPERATOR_URL', 'http://127.0.0.1:99999'],
      ['JWT_SECRET', 'short'],
      ['JWT_SECRET', 'x'.repeat(31)],
      ['TRUST_PROXY', 'maybe'],
      ['LOG_LEVEL', 'loud'],
      ['DATABASE_URL', 'mysql://root@127.0.0.1/firmledger'],
      ['DATABASE_URL', '127.0.0.1:5432'],
      ['DATABASE_URL', 'postgres://'],
      ['REDIS_URL', 'http://127.0.0.1:6379'],
      ['REDIS_URL', 'localhost'],
      ['SQLITE_DRIVER', 'sqlite'],
      ['SQLITE_DRIVER', 'postgres'],
      ['SQLITE_SYNCHRONOUS', 'OFF'],
      ['SQLITE_SYNCHRONOUS', 'EXTRA'],
    ];
    for (const [variable, value] of cases) {
      it(`${variable}=${JSON.stringify(value)}`, () => assertRefused({ [variable]: value }, variable));
    }

    it('names the bad variable, not another, when several are set', () => {
      assertRefused({ AUTH_URL: 'http://0.0.0.0:3001', LOGIN_RATE_LIMIT: '10', JWT_TTL_SECONDS: 'forever' }, 'JWT_TTL_SECONDS');
    });

    it('does not repeat a rejected DATABASE_URL or REDIS_URL, which may carry a password', () => {
      for (const variable of ['DATABASE_URL', 'REDIS_URL']) {
        assert.throws(
          () => loadConfig({ [variable]: 'mysql://admin:hunter2@db/x' }),
          (error: unknown) => error instanceof ConfigError && error.message.includes(variable) && !error.message.includes('hunter2'),
        );
      }
    });

    it('does not repeat a rejected JWT_SECRET in the message', () => {
      assert.throws(
        () => loadConfig({ JWT_SECRET: 'hunter2-secret' }),
        (error: unknown) => error instanceof ConfigError && !error.message.includes('hunter2'),
      );
    });
  });

  describe('TLS certificate files', () => {
    it('gives every https:// component the shared TLS_CERT_FILE and TLS_KEY_FILE, as absolute paths', () => {
      const config = loadConfig({ VC_URL: 'https://0.0.0.0:8443', TLS_CERT_FILE: 'tls/all.crt', TLS_KEY_FILE: 'tls/all.key' });
      assert.deepEqual(config.tls.vc, {
        cert: { path: resolve('tls/all.crt'), variable: 'TLS_CERT_FILE' },
        key: { path: resolve('tls/all.key'), variable: 'TLS_KEY_FILE' },
      });
      assert.equal(config.urls.vc.protocol, 'https:');
    });

    it("prefers a component's own pair, and reads a certificate beside an http:// URL as the TLS proxy's", () => {
      const config = loadConfig({
        IPFS_URL: 'https://0.0.0.0:8443',
        IPFS_TLS_CERT_FILE: '/etc/fl/ipfs.crt',
        IPFS_TLS_KEY_FILE: '/etc/fl/ipfs.key',
        TLS_CERT_FILE: '/etc/fl/all.crt',
        TLS_KEY_FILE: '/etc/fl/all.key',
        BC_TLS_CERT_FILE: '/etc/fl/proxy-bc.crt',
      });
      assert.equal(config.tls.ipfs.cert?.variable, 'IPFS_TLS_CERT_FILE');
      assert.equal(config.tls.ipfs.key?.path, '/etc/fl/ipfs.key');
      // http:// components: the certificate devices see at the proxy, no key (the listener serves none).
      assert.deepEqual(config.tls.bc, { cert: { path: '/etc/fl/proxy-bc.crt', variable: 'BC_TLS_CERT_FILE' } });
      assert.deepEqual(config.tls.auth, { cert: { path: '/etc/fl/all.crt', variable: 'TLS_CERT_FILE' } });
    });

    it('lets components share an https:// listener with one certificate', () => {
      const config = loadConfig({
        AUTH_URL: 'https://0.0.0.0:443/auth',
        VC_URL: 'https://0.0.0.0/vc',
        TLS_CERT_FILE: '/etc/fl/all.crt',
        TLS_KEY_FILE: '/etc/fl/all.key',
      });
      assert.equal(config.tls.auth.cert?.path, config.tls.vc.cert?.path);
    });

    const refusals: [string, Record<string, string>, RegExp][] = [
      [
        'an https:// URL without certificate files',
        { VC_URL: 'https://0.0.0.0:8443' },
        /VC_URL is https:\/\/: set VC_TLS_CERT_FILE and VC_TLS_KEY_FILE/,
      ],
      [
        'an https:// URL with a certificate but no key',
        { BC_URL: 'https://0.0.0.0:8443', BC_TLS_CERT_FILE: '/x.crt' },
        /BC_URL is https:\/\/: set BC_TLS_CERT_FILE and BC_TLS_KEY_FILE/,
      ],
      ['a key without its certificate', { TLS_KEY_FILE: '/x.key' }, /TLS_KEY_FILE is set without TLS_CERT_FILE/],
      ["a component's key without its certificate", { VC_TLS_KEY_FILE: '/x.key' }, /VC_TLS_KEY_FILE is set without VC_TLS_CERT_FILE/],
      [
        "a component's key beside an http:// URL (the listener would not serve TLS)",
        { TOOLS_TLS_CERT_FILE: '/x.crt', TOOLS_TLS_KEY_FILE: '/x.key' },
        /TOOLS_TLS_KEY_FILE is set but TOOLS_URL is http:\/\//,
      ],
      [
        'one listener with both schemes',
        { AUTH_URL: 'http://0.0.0.0:9000/a', VC_URL: 'https://0.0.0.0:9000/v', TLS_CERT_FILE: '/x.crt', TLS_KEY_FILE: '/x.key' },
        /AUTH_URL and VC_URL share 0\.0\.0\.0:9000 .* not the scheme/,
      ],
      [
        'one https:// listener with two certificates',
        {
          AUTH_URL: 'https://0.0.0.0:9000/a',
          VC_URL: 'https://0.0.0.0:9000/v',
          TLS_CERT_FILE: '/x.crt',
          TLS_KEY_FILE: '/x.key',
          VC_TLS_CERT_FILE: '/v.crt',
          VC_TLS_KEY_FILE: '/v.key',
        },
        /AUTH_URL and VC_URL share 0\.0\.0\.0:9000 .* different certificates \(TLS_CERT_FILE, VC_TLS_CERT_FILE\)/,
      ],
    ];
    for (const [what, env, message] of refusals) {
      it(`refuses ${what}, naming the variables`, () => {
        assert.throws(
          () => loadConfig(env),
          (error: unknown) => error instanceof ConfigError && message.test(error.message),
        );
      });
    }
  });

  describe('FIRMWARE_MAX_BYTES (docs/decisions.md §9 firmware upload)', () => {
    it('defaults to 64 MiB', () => assert.equal(loadConfig({}).firmwareMaxBytes, 67_108_864));

    it('reads a whole number of bytes', () => assert.equal(loadConfig({ FIRMWARE_MAX_BYTES: '1048576' }).firmwareMaxBytes, 1_048_576));

    for (const value of ['0', '-1', '1.5', '64MiB', '1e6', String(16 * 1024 ** 3 + 1)]) {
      it(`refuses ${JSON.stringify(value)} naming the variable`, () => assertRefused({ FIRMWARE_MAX_BYTES: value }, 'FIRMWARE_MAX_BYTES'));
    }
  });

  describe('the ledger signing key, origin and witnesses', () => {
    it('creates the key in the data directory on first start, named after BC_URL, and keeps it', () => {
      const dir = mkdtempSync(join(tmpdir(), 'firmledger-key-'));
      try {
        const first = prepareDataDir(loadConfig({ DATA_DIR: dir, BC_URL: 'http://ledger.example.com:8443' }));
        assert.equal(first.ledgerOrigin, 'firmledger/ledger.example.com:8443');
        assert.equal(readFileSync(join(dir, 'ledger-signing-key'), 'utf8').trim(), first.ledgerSigningKey);
        const again = prepareDataDir(loadConfig({ DATA_DIR: dir, BC_URL: 'http://elsewhere:1' }));
        assert.equal(again.ledgerSigningKey, first.ledgerSigningKey, 'the kept key, whatever BC_URL says now');
        assert.throws(
          () => prepareDataDir(loadConfig({ DATA_DIR: dir, LEDGER_ORIGIN: 'other.example/log' })),
          /LEDGER_ORIGIN "other.example\/log" is not the name/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('takes LEDGER_SIGNING_KEY and names the origin after it', () => {
      const key = generateSigner('log.example/prod', ED25519);
      const config = loadConfig({ LEDGER_SIGNING_KEY: key.secret });
      assert.equal(config.ledgerOrigin, 'log.example/prod');
      assert.equal(config.ledgerSigningKey, key.secret);
    });

    it('refuses a malformed key without repeating it, witness keys of the wrong type, and a quorum beyond the witnesses', () => {
      const secret = generateSigner('log.example/prod', ED25519).secret;
      const mangled = secret.slice(0, -4) + 'AAAA';
      assert.throws(
        () => loadConfig({ LEDGER_SIGNING_KEY: mangled }),
        (error: Error) =>
          error instanceof ConfigError && error.message.startsWith('LEDGER_SIGNING_KEY') && !error.message.includes(mangled),
      );
      assert.throws(() => loadConfig({ LEDGER_WITNESS_KEYS: generateSigner('w', ED25519).text }), /LEDGER_WITNESS_KEYS/);
      const witness = generateSigner('w', COSIGNATURE_ED25519).text;
      assert.equal(loadConfig({ LEDGER_WITNESS_KEYS: witness, LEDGER_WITNESS_QUORUM: '1' }).ledgerWitnessQuorum, 1);
      assertRefused({ LEDGER_WITNESS_KEYS: witness, LEDGER_WITNESS_QUORUM: '2' }, 'LEDGER_WITNESS_QUORUM');
    });
  });
});
