import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Clock } from '#src/platform/common/clock.js';
import type { AppConfig } from '#src/platform/config/app-config.js';
import { DOWNLOAD_LINK_SECONDS, DownloadLinks } from './download-links.js';

class FixedClock extends Clock {
  constructor(public ms: number) {
    super();
  }
  now(): number {
    return this.ms;
  }
}

describe(DownloadLinks.name, () => {
  const config = { jwtSecret: Buffer.from('a JWT secret of at least thirty-two bytes') } as AppConfig;

  it('accepts its own link for a day, for the path it signed only', () => {
    const clock = new FixedClock(Date.UTC(2026, 11, 1));
    const links = new DownloadLinks(config, clock);
    const { expires, signature } = links.sign('/download/1/2/3');
    assert.equal(expires, Date.UTC(2026, 11, 1) / 1000 + DOWNLOAD_LINK_SECONDS);
    assert.equal(links.verify('/download/1/2/3', String(expires), signature), true);
    assert.equal(links.verify('/download/1/2/4', String(expires), signature), false, 'another device');
    assert.equal(links.verify('/download/1/2/3', String(expires + 1), signature), false, 'a later expiry');
    assert.equal(links.verify('/download/1/2/3', String(expires), `${signature.slice(0, -1)}A`), false);
    assert.equal(links.verify('/download/1/2/3', undefined, signature), false);
    assert.equal(links.verify('/download/1/2/3', '1e12', signature), false);
    clock.ms += (DOWNLOAD_LINK_SECONDS + 1) * 1000;
    assert.equal(links.verify('/download/1/2/3', String(expires), signature), false, 'expired');
  });

  it('signs with a key of the JWT secret: another secret’s links are refused', () => {
    const clock = new FixedClock(Date.now());
    const { expires, signature } = new DownloadLinks(config, clock).sign('/download/1/2/3');
    const other = new DownloadLinks({ jwtSecret: Buffer.from('another JWT secret of thirty-two bytes or more') } as AppConfig, clock);
    assert.equal(other.verify('/download/1/2/3', String(expires), signature), false);
  });
});
