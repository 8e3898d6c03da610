import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { OPENAPI_DIR, renderOpenApiFiles } from './openapi-files.js';

/** 1-based number of the first line where two texts differ. */
function firstDifferentLine(a: string, b: string): number {
  const left = a.split('\n');
  const right = b.split('\n');
  const index = left.findIndex((line, i) => line !== right[i]);
  return (index === -1 ? left.length : index) + 1;
}

describe('OpenAPI documents in openapi/', () => {
  it('are what the code generates (else: run npm run openapi and commit the result)', async () => {
    const generated = await renderOpenApiFiles();
    for (const [name, text] of generated) {
      const file = new URL(name, OPENAPI_DIR);
      assert.ok(existsSync(file), `openapi/${name} is missing: run npm run openapi`);
      const committed = readFileSync(file, 'utf8');
      assert.ok(
        committed === text,
        `openapi/${name} is out of date: run npm run openapi (first difference at line ${firstDifferentLine(committed, text)})`,
      );
    }
    const stale = readdirSync(OPENAPI_DIR).filter((name) => name.endsWith('.json') && !generated.has(name));
    assert.deepEqual(stale, [], `no component generates ${stale.join(', ')} any more: run npm run openapi`);
  });

  it('are generated deterministically, one per component', async () => {
    const [first, second] = [await renderOpenApiFiles(), await renderOpenApiFiles()];
    assert.deepEqual([...first.keys()], ['auth.json', 'vc.json', 'bc.json', 'operator.json', 'ipfs.json', 'tools.json', 'ddi.json', 'mender.json']);
    assert.deepEqual(second, first);
  });
});
