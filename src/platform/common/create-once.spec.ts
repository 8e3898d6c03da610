import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileOnce } from './create-once.js';

describe(createFileOnce.name, () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'firmledger-create-once-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the file with its content, readable by the owner only, and leaves nothing else beside it', () => {
    const file = join(dir, 'secret');
    createFileOnce(file, 'first\n');
    assert.equal(readFileSync(file, 'utf8'), 'first\n');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['secret']);
  });

  it('keeps a file that exists (another instance created it first) and drops its own content', () => {
    const file = join(dir, 'kept');
    writeFileSync(file, 'the winner\n');
    createFileOnce(file, 'too late\n');
    assert.equal(readFileSync(file, 'utf8'), 'the winner\n');
    assert.deepEqual(readdirSync(dir).sort(), ['kept', 'secret']);
  });
});
