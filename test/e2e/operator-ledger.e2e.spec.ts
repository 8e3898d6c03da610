import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '#test/support/harness.js';
import { operatorClient, runCli, type OperatorClient } from '#test/support/operator.js';
import type { Page } from '#src/operator/dto/paging.dto.js';
import { OperatorTokenService } from '#src/domain/access/operator-token.service.js';
import type { LedgerEntryResponse, LedgerVerifyResponse } from '#src/operator/dto/ledger.dto.js';

type Entry = LedgerEntryResponse;
type Verify = LedgerVerifyResponse;

const GENESIS = '0'.repeat(64);

/** docs/decisions.md §7, §9: the ledger over the operator API: entries in sequence order, and verify. */
describe('operator API: ledger (docs/decisions.md §7, §9)', () => {
  let app: TestApp;
  let op: OperatorClient;
  const secrets: string[] = [];
  let acme: { id: number };
  let other: { id: number };

  const entries = async (query = ''): Promise<Page<Entry>> => {
    const answer = await op.get(`/ledger/entries${query}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as Page<Entry>;
  };

  before(async () => {
    app = await startTestApp();
    op = operatorClient(app, await app.createOperatorToken());
    const created = (await op.post('/tenants', { name: 'acme' })).body as { id: number; customer_key: string };
    acme = created;
    secrets.push(created.customer_key);
    const key = (await op.post('/tenants/acme/device-keys', { device_type: 'ESP32' })).body as { id: number };
    await op.post('/tenants/acme/groups', { name: 'beta', macs: ['ac-67-b2-30-00-01'] });
    secrets.push(((await op.post('/tenants/acme/customer-key/rotate')).body as { customer_key: string }).customer_key);
    await op.post(`/tenants/acme/device-keys/${key.id}/revoke`);
    const second = (await op.post('/tenants', { name: 'other' })).body as { id: number; customer_key: string };
    other = second;
    secrets.push(second.customer_key);
  });
  after(() => app.close());

  describe('GET /ledger/entries', () => {
    it('answers every change made over the API, in sequence order, each chained to the one before', async () => {
      const page = await entries();
      assert.equal(page.total, 7);
      assert.deepEqual(
        page.items.map((e) => [e.seq, e.tenant_id, e.type, e.subject]),
        [
          [1, acme.id, 'tenant.created', `tenant:${acme.id}`],
          [2, acme.id, 'device-key.created', 'device-key:1'],
          [3, acme.id, 'group.created', 'group:1'],
          [4, acme.id, 'group.members-added', 'group:1'],
          [5, acme.id, 'tenant.customer-key-rotated', `tenant:${acme.id}`],
          [6, acme.id, 'device-key.revoked', 'device-key:1'],
          [7, other.id, 'tenant.created', `tenant:${other.id}`],
        ],
      );
      assert.deepEqual(Object.keys(page.items[0]), [
        'seq',
        'tenant_id',
        'type',
        'subject',
        'payload',
        'created_at',
        'actor',
        'prev_hash',
        'hash',
      ]);
      assert.equal(page.items[0].prev_hash, GENESIS);
      for (let i = 1; i < page.items.length; i++) assert.equal(page.items[i].prev_hash, page.items[i - 1].hash);
      for (const entry of page.items) {
        assert.match(entry.hash, /^[0-9a-f]{64}$/);
        assert.equal(entry.created_at, new Date(Date.parse(entry.created_at)).toISOString());
      }
    });

    it('names the operator token that made each change, and the hash covers it', async () => {
      const [token] = await app.server.app.get(OperatorTokenService).list();
      const page = await entries();
      assert.deepEqual(new Set(page.items.map((e) => e.actor)), new Set([`token:${token.id}:${token.name}`]));
      // Changing the recorded actor breaks the chain at that entry.
      await app.database.execute('UPDATE ledger_entry SET actor = $1 WHERE seq = 3', ['user:mallory']);
      const verify = (await op.get('/ledger/verify')).body as Verify;
      assert.deepEqual(verify.first_break, { seq: 3, reason: 'hash does not match the entry content' });
      await app.database.execute('UPDATE ledger_entry SET actor = $1 WHERE seq = 3', [`token:${token.id}:${token.name}`]);
      assert.equal(((await op.get('/ledger/verify')).body as Verify).ok, true);
    });

    it('answers newest first with order=desc, and refuses another order', async () => {
      const page = await entries('?order=desc&per_page=2');
      assert.deepEqual(
        page.items.map((e) => e.seq),
        [7, 6],
      );
      assert.equal(page.total, 7);
      const bad = await op.get('/ledger/entries?order=sideways');
      assert.deepEqual(
        { status: bad.status, body: bad.body },
        { status: 400, body: { message: 'order must be asc or desc', field: 'order' } },
      );
    });

    it('answers payloads as parsed JSON', async () => {
      const page = await entries();
      assert.deepEqual(page.items[3].payload, { id: 1, macs: ['AC:67:B2:30:00:01'], name: 'beta' });
      assert.deepEqual(page.items[5].payload, { deviceType: 'ESP32', id: 1, revoked: true });
    });

    it('records the customer-key rotation without the key, and never shows a customer key', async () => {
      const text = JSON.stringify(await entries());
      for (const secret of secrets) assert.ok(!text.includes(secret), 'a customer key is on the ledger');
      assert.deepEqual((await entries()).items[4].payload, { id: acme.id, name: 'acme' });
    });

    it('answers page 2 with the total', async () => {
      const page = await entries('?page=2&per_page=3');
      assert.deepEqual(
        { seqs: page.items.map((e) => e.seq), page: page.page, per_page: page.per_page, total: page.total },
        { seqs: [4, 5, 6], page: 2, per_page: 3, total: 7 },
      );
    });

    it('filters by tenant, by name or id, still in sequence order', async () => {
      const byName = await entries('?tenant=acme');
      assert.deepEqual(
        byName.items.map((e) => e.seq),
        [1, 2, 3, 4, 5, 6],
      );
      assert.equal(byName.total, 6);
      const byId = await entries(`?tenant=${other.id}&per_page=1`);
      assert.deepEqual({ seqs: byId.items.map((e) => e.seq), total: byId.total }, { seqs: [7], total: 1 });
      assert.deepEqual(
        (await entries('?tenant=acme&page=2&per_page=4')).items.map((e) => e.seq),
        [5, 6],
      );
    });

    it('answers 404 for an unknown tenant and 400 naming a bad parameter', async () => {
      const unknown = await op.get('/ledger/entries?tenant=nosuch');
      assert.deepEqual({ status: unknown.status, body: unknown.body }, { status: 404, body: { message: 'Tenant "nosuch" not found' } });
      for (const [query, message] of [
        ['tenant=', 'tenant must be 1 to 128 characters'],
        ['per_page=501', 'per_page must be at most 500'],
        ['page=x', 'page must be a whole number'],
      ]) {
        const answer = await op.get(`/ledger/entries?${query}`);
        assert.deepEqual({ status: answer.status, body: answer.body }, { status: 400, body: { message, field: query.split('=')[0] } });
      }
    });
  });

  describe('GET /ledger/verify', () => {
    it('answers ok with the entry count and the head hash, as the CLI does', async () => {
      const answer = await op.get('/ledger/verify');
      assert.equal(answer.status, 200);
      const all = await entries();
      assert.deepEqual(answer.body, {
        ok: true,
        entries: 7,
        head: all.items[6].hash,
        first_break: null,
        checkpoints: 0,
        cosignatures: 0,
        tuf: { ok: true, repositories: 0, files: 0, expired: [], first_break: null },
      } satisfies Verify);
      const cli = await runCli(app, 'ledger', 'verify', '--json');
      assert.equal(cli.code, 0, cli.stderr);
      const fromCli = JSON.parse(cli.stdout) as { ok: boolean; entries: number; head: string };
      assert.deepEqual({ ok: fromCli.ok, entries: fromCli.entries, head: fromCli.head }, { ok: true, entries: 7, head: all.items[6].hash });
    });

    it('names the first entry that does not match after the database is altered', async () => {
      assert.equal(await app.database.execute('UPDATE ledger_entry SET payload = $1 WHERE seq = 3', ['{"tampered":true}']), 1);
      const answer = await op.get('/ledger/verify');
      assert.equal(answer.status, 200);
      const result = answer.body as Verify;
      assert.deepEqual(
        { ok: result.ok, entries: result.entries, first_break: result.first_break },
        { ok: false, entries: 2, first_break: { seq: 3, reason: 'hash does not match the entry content' } },
      );
      // The altered entry is still readable, as stored.
      assert.deepEqual((await entries('?page=3&per_page=1')).items[0].payload, { tampered: true });
    });
  });
});
