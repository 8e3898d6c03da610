import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { baseUrlText, listenerLine, markerToBaseUrl } from './base-url.js';
import { planListeners } from './listener-plan.js';

describe(baseUrlText.name, () => {
  it('writes scheme, host, port and prefix without a trailing slash', () => {
    assert.equal(baseUrlText(new URL('http://0.0.0.0:3002')), 'http://0.0.0.0:3002');
    assert.equal(baseUrlText(new URL('https://fw.example.com/vc/')), 'https://fw.example.com/vc');
    assert.equal(baseUrlText(new URL('http://[::1]:3001/a/b')), 'http://[::1]:3001/a/b');
  });
});

describe(markerToBaseUrl.name, () => {
  const rewrite = markerToBaseUrl({ vc: new URL('http://0.0.0.0:3002/fw'), bc: new URL('http://0.0.0.0:3003') });

  it('puts each marked route under its component’s base URL', () => {
    assert.equal(rewrite('Mapped {/__vc/api/device/:mac, GET} route'), 'Mapped {http://0.0.0.0:3002/fw/api/device/:mac, GET} route');
    assert.equal(rewrite('ChainController {/__bc}:'), 'ChainController {http://0.0.0.0:3003}:');
  });

  it('leaves text without a known marker alone', () => {
    assert.equal(rewrite('Mapped {/__ops/x, GET} route'), 'Mapped {/__ops/x, GET} route');
    assert.equal(rewrite('Mapped {/__vcx/a, GET} route'), 'Mapped {/__vcx/a, GET} route');
    assert.equal(rewrite('AppModule dependencies initialized'), 'AppModule dependencies initialized');
  });
});

describe(listenerLine.name, () => {
  it('names the listener’s socket and the base URL of every component on it', () => {
    const urls = {
      auth: new URL('http://127.0.0.1:4001'),
      vc: new URL('http://127.0.0.1:4001/fw/vc'),
      bc: new URL('http://127.0.0.1:4003'),
    };
    const [shared, single] = planListeners(urls);
    assert.deepEqual(listenerLine(shared, urls), {
      msg: 'listening on http://127.0.0.1:4001: auth at http://127.0.0.1:4001, vc at http://127.0.0.1:4001/fw/vc',
      components: { auth: 'http://127.0.0.1:4001', vc: 'http://127.0.0.1:4001/fw/vc' },
    });
    assert.equal(listenerLine(single, urls).msg, 'listening on http://127.0.0.1:4003: bc at http://127.0.0.1:4003');
  });
});
