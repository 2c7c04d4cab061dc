// The results storage, both kinds, through the same checks: on local disk, and in an S3-compatible
// bucket (s3rver started here on loopback, port 0; the AWS SDK as in production, path-style).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { openResults } from './index.ts';
import type { ResultStore } from './store.ts';

const dirs: string[] = [];
const tmp = (p: string) => {
  const d = mkdtempSync(path.join(os.tmpdir(), p));
  dirs.push(d);
  return d;
};
let s3: S3rver;
let endpoint: string;

before(async () => {
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: tmp('s3rver-'), configureBuckets: [{ name: 'shots', configs: [] }] });
  const addr = (await s3.run()) as { port: number };
  endpoint = `http://127.0.0.1:${addr.port}`;
});

after(async () => {
  await s3?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const KINDS: Array<[string, () => ResultStore]> = [
  ['local disk', () => openResults({ kind: 'local' }, tmp('results-'))],
  [
    's3 (s3rver)',
    () =>
      openResults(
        { kind: 's3', bucket: 'shots', endpoint, region: 'eu-west-3', prefix: 'test/', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        '/nonexistent',
      ),
  ],
];

for (const [name, open] of KINDS) {
  describe(`results on ${name}`, () => {
    test('a picture is kept as written, replaced by a second write, gone once deleted', async () => {
      const store = open();
      try {
        const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]);
        assert.equal(await store.get('batches/bat_x/0'), undefined);
        await store.put('batches/bat_x/0', { body: png, contentType: 'image/png' });
        const got = await store.get('batches/bat_x/0');
        assert.deepEqual(got, { body: png, contentType: 'image/png' });
        await store.put('batches/bat_x/0', { body: Buffer.from('jpeg'), contentType: 'image/jpeg' });
        assert.deepEqual(await store.get('batches/bat_x/0'), { body: Buffer.from('jpeg'), contentType: 'image/jpeg' });
        await store.delete('batches/bat_x/0');
        await store.delete('batches/bat_x/0'); // deleting what is gone is no error
        assert.equal(await store.get('batches/bat_x/0'), undefined);
      } finally {
        await store.close();
      }
    });
  });
}

test('a key never leaves the local results directory', async () => {
  const store = openResults({ kind: 'local' }, tmp('results-'));
  for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a//b'])
    await assert.rejects(store.put(bad, { body: Buffer.from('x'), contentType: 'x' }), /bad result key/);
});
