// The operator CLI end to end, as a child process on each store: create (key shown once, stored
// hashed), list (never the key), grant, revoke, and the embedded store's one-process lock.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { STORES } from '../../test/support/stores.ts';

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cli.ts');
const run = promisify(execFile);

async function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', API_KEYS: '', ...env };
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', CLI, ...args], { env: childEnv });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

for (const store of STORES) {
  describe(`keys CLI on ${store.name}`, { skip: store.skip }, () => {
    test('create, list, grant, revoke', async () => {
      const s = await store.make();
      const c = s.config();
      const env: Record<string, string> = c.databaseUrl ? { DATABASE_URL: c.databaseUrl } : { DATA_DIR: c.dataDir };
      try {
        const made = await cli({ ...env, FREE_CREDITS: '100' }, 'keys', 'create', '--label', 'alice', '--json');
        assert.equal(made.code, 0, made.stderr);
        const { key, keyId, accountId, credits } = JSON.parse(made.stdout);
        assert.match(key, /^sk_[A-Za-z0-9_-]{43}$/);
        assert.equal(credits, 100);

        const listed = await cli(env, 'keys', 'list');
        assert.equal(listed.code, 0, listed.stderr);
        assert.ok(listed.stdout.includes(keyId) && listed.stdout.includes(key.slice(0, 10)));
        assert.ok(!listed.stdout.includes(key), 'list never shows a key');
        assert.match(listed.stdout, new RegExp(`${accountId}\\s+100\\s+0`));

        const granted = await cli(env, 'keys', 'grant', keyId, '25');
        assert.equal(granted.stdout.trim(), `account ${accountId}: 125 credits`);

        assert.equal((await cli(env, 'keys', 'revoke', keyId)).code, 0);
        const after = JSON.parse((await cli(env, 'keys', 'list', '--all', '--json')).stdout);
        assert.equal(after.length, 1);
        assert.ok(after[0].revokedAt);
        assert.equal((await cli(env, 'keys', 'list')).stdout.trim(), 'no keys');

        const bad = await cli(env, 'keys', 'grant', accountId, 'lots');
        assert.equal(bad.code, 2);
        assert.equal((await cli(env, 'keys', 'frobnicate')).code, 2);
      } finally {
        await s.destroy();
      }
    });

    test('the embedded store refuses a second process', { skip: store.name !== 'embedded' && 'PostgreSQL serves many' }, async () => {
      const s = await store.make();
      const l = await s.open();
      try {
        const r = await cli({ DATA_DIR: s.config().dataDir }, 'keys', 'list');
        assert.equal(r.code, 1);
        assert.match(r.stderr, /in use by process \d+/);
      } finally {
        await l.close();
        await s.destroy();
      }
    });
  });
}
