import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from './app-config.js';

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
  describe('defaults (CONTRACT.md §2, §4)', () => {
    const config = loadConfig({});

    it('AUTH_URL http://0.0.0.0:3001, VC_URL :3002, BC_URL :3003', () => {
      assert.equal(config.urls.auth.href, 'http://0.0.0.0:3001/');
      assert.equal(config.urls.vc.href, 'http://0.0.0.0:3002/');
      assert.equal(config.urls.bc.href, 'http://0.0.0.0:3003/');
    });

    it('OPERATOR_URL http://127.0.0.1:3004 (not where devices connect)', () => {
      assert.equal(config.urls.operator.href, 'http://127.0.0.1:3004/');
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

    it('accepts an explicit port 80 (a base URL names a port, CONTRACT.md §2)', () => {
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

  describe('FIRMWARE_MAX_BYTES (CONTRACT.md §9 firmware upload)', () => {
    it('defaults to 64 MiB', () => assert.equal(loadConfig({}).firmwareMaxBytes, 67_108_864));

    it('reads a whole number of bytes', () => assert.equal(loadConfig({ FIRMWARE_MAX_BYTES: '1048576' }).firmwareMaxBytes, 1_048_576));

    for (const value of ['0', '-1', '1.5', '64MiB', '1e6', String(16 * 1024 ** 3 + 1)]) {
      it(`refuses ${JSON.stringify(value)} naming the variable`, () => assertRefused({ FIRMWARE_MAX_BYTES: value }, 'FIRMWARE_MAX_BYTES'));
    }
  });
});
