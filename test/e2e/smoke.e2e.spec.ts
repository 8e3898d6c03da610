import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request, startTestApp, type TestApp } from '#test/support/harness.js';

describe('harness smoke', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('logs in and registers', async () => {
    const tenant = await app.createTenant();
    const token = await app.login(tenant);
    const answer = await request('POST', `${app.urls.vc}/api/device/register`, {
      token,
      body: { mac: '02:00:00:00:00:01', firmware_version: '1.0.0' },
    });
    assert.deepEqual(answer.body, { message: 'Device inserted!' });
    const media = await request('POST', `${app.urls.vc}/api/device/register`, {
      token,
      rawBody: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(media.status, 415);
    console.log(media.body);
  });
});
