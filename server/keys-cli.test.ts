// The operator CLI end to end on each store: create (key shown once, stored hashed), list (never
// the key), grant, revoke, and the embedded store's one-process lock. Commands run in this process
// (runKeysCli, as the program runs them: its argv, an environment, its two streams); the program
// itself (`node --import tsx server/keys-cli.ts`, exit codes and streams) and the lock, which is
// between processes, run as child processes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { resolveKek } from './links/kek.ts';
import { parseQuery } from './links/canonical.ts';
import { verifyLink } from './links/verify.ts';
import { STORES } from '../test/support/stores.ts';
import { runKeysCli } from './keys-cli.ts';
import { derivedId, hashKey } from './accounts/keys.ts';
import { derivedWebhookSecret } from './webhooks/secrets.ts';

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), 'keys-cli.ts');
const run = promisify(execFile);

type Ran = { code: number; stdout: string; stderr: string };

async function cli(env: Record<string, string>, ...args: string[]): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runKeysCli(
    args,
    { ...process.env, DATABASE_URL: '', API_KEYS: '', ...env },
    { out: (l) => out.push(`${l}\n`), err: (l) => err.push(`${l}\n`) },
  );
  return { code, stdout: out.join(''), stderr: err.join('') };
}

async function program(env: Record<string, string>, ...args: string[]): Promise<Ran> {
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

        // The secret that signs the key's webhooks: the same until rotated.
        const shown = JSON.parse((await cli(env, 'keys', 'webhook-secret', keyId, '--json')).stdout).webhookSecret;
        assert.match(shown, /^whsec_[A-Za-z0-9+/]{32}$/);
        assert.equal(JSON.parse((await cli(env, 'keys', 'webhook-secret', keyId, '--json')).stdout).webhookSecret, shown);
        const turned = JSON.parse((await cli(env, 'keys', 'webhook-secret', keyId, '--rotate', '--json')).stdout).webhookSecret;
        assert.notEqual(turned, shown);
        assert.equal(JSON.parse((await cli(env, 'keys', 'webhook-secret', keyId, '--json')).stdout).webhookSecret, turned);

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

    test('signed links: create shows the signing secret once; sign (from the store or offline) and rotate-secret', async () => {
      const s = await store.make();
      const c = s.config();
      const kekHex = '5'.repeat(64);
      // PostgreSQL needs LINK_SIGNING_KEK; the embedded store makes DATA_DIR/link-signing.kek itself.
      const env: Record<string, string> = c.databaseUrl ? { DATABASE_URL: c.databaseUrl, LINK_SIGNING_KEK: kekHex } : { DATA_DIR: c.dataDir };
      const kek = resolveKek({ linkSigningKek: c.databaseUrl ? Buffer.from(kekHex, 'hex') : null, databaseUrl: c.databaseUrl, dataDir: c.dataDir })!;
      try {
        const made = await cli(env, 'keys', 'create', '--label', 'links', '--json');
        assert.equal(made.code, 0, made.stderr);
        const { keyId, signingSecret } = JSON.parse(made.stdout);
        assert.match(signingSecret, /^lss_[A-Za-z0-9_-]{43}$/);
        assert.ok(!(await cli(env, 'keys', 'list', '--all')).stdout.includes(signingSecret), 'list never shows it');

        const options = '{"url":"https://example.com/a b","viewport":{"width":1200,"height":630},"hideSelectors":[".x","#y"]}';
        const fromStore = await cli(env, 'keys', 'sign', keyId, options, '--expires', '4102444800', '--base-url', 'https://shots.example.com/');
        assert.equal(fromStore.code, 0, fromStore.stderr);
        const link = fromStore.stdout.trim();
        assert.match(
          link,
          /^https:\/\/shots\.example\.com\/v1\/screenshot\?expires=4102444800&hideSelectors=\.x&hideSelectors=%23y&keyId=key_[0-9a-f]{16}&url=https%3A%2F%2Fexample\.com%2Fa%20b&viewport\.height=630&viewport\.width=1200&signature=[0-9a-f]{64}$/,
        );
        const offline = await cli(
          {},
          'keys',
          'sign',
          keyId,
          options,
          '--expires',
          '4102444800',
          '--base-url',
          'https://shots.example.com',
          '--secret',
          signingSecret,
        );
        assert.equal(offline.stdout.trim(), link, 'the same link without the store');

        // One process at a time on the embedded store: the test opens it only between CLI runs.
        const verify = async (url: string) => {
          const l = await s.open();
          try {
            return await verifyLink(parseQuery(new URL(url).search.slice(1)), { db: l.db, kek });
          } finally {
            await l.close();
          }
        };
        const ok = await verify(link);
        assert.equal(ok.account.keyId, keyId);
        assert.deepEqual(ok.options, { url: 'https://example.com/a b', viewport: { width: 1200, height: 630 }, hideSelectors: ['.x', '#y'] });
        const rotated = await cli(env, 'keys', 'rotate-secret', keyId, '--json');
        assert.equal(rotated.code, 0, rotated.stderr);
        assert.notEqual(JSON.parse(rotated.stdout).signingSecret, signingSecret);
        await assert.rejects(verify(link), /signature does not match/, 'the old secret no longer signs');
        const refused = await cli(
          {},
          'keys',
          'sign',
          keyId,
          '{"url":"https://example.com","cookies":[{"name":"s","value":"v"}]}',
          '--expires-in',
          '60',
          '--secret',
          signingSecret,
        );
        assert.equal(refused.code, 2);
        assert.match(refused.stderr, /cookies cannot be sent in a signed link/);
        const invalid = await cli(
          {},
          'keys',
          'sign',
          keyId,
          '{"url":"https://example.com","viewport":{"width":0,"height":1}}',
          '--expires-in',
          '60',
          '--secret',
          signingSecret,
        );
        assert.equal(invalid.code, 2);
        assert.match(invalid.stderr, /viewport\.width must be/);
      } finally {
        await s.destroy();
      }
    });

    test('webhook-secret of an API_KEYS key under WEBHOOK_SECRET: the derived secret, the same each time, not rotated here', async () => {
      const s = await store.make();
      const c = s.config();
      const env: Record<string, string> = c.databaseUrl ? { DATABASE_URL: c.databaseUrl } : { DATA_DIR: c.dataDir };
      const SECRET = `whsec_${Buffer.from('keys-cli-webhook-secret-0123').toString('base64')}`;
      const keys = ['cli-env-key-one-0123456789', 'cli-env-key-two-0123456789'];
      try {
        await (await s.open({ apiKeys: keys })).close(); // the keys of API_KEYS, as a server's start syncs them
        const ids = keys.map((k) => derivedId('key', hashKey(k)));
        const shown = [];
        for (const id of ids) {
          const r = await cli({ ...env, WEBHOOK_SECRET: SECRET }, 'keys', 'webhook-secret', id, '--json');
          assert.equal(r.code, 0, r.stderr);
          shown.push(JSON.parse(r.stdout).webhookSecret);
          assert.equal(shown.at(-1), derivedWebhookSecret(SECRET, id));
        }
        assert.notEqual(shown[0], shown[1], 'two keys, two secrets');
        const rotate = await cli({ ...env, WEBHOOK_SECRET: SECRET }, 'keys', 'webhook-secret', ids[0]!, '--rotate');
        assert.equal(rotate.code, 1);
        assert.match(rotate.stderr, /derived from WEBHOOK_SECRET/);
        const again = await cli({ ...env, WEBHOOK_SECRET: SECRET }, 'keys', 'webhook-secret', ids[0]!, '--json');
        assert.equal(JSON.parse(again.stdout).webhookSecret, shown[0]);
      } finally {
        await s.destroy();
      }
    });

    test(
      'as a program: its output on stdout, refusals on stderr, exit codes 0, 1 and 2',
      { skip: store.name !== 'embedded' && 'the same program on either store' },
      async () => {
        const s = await store.make();
        const c = s.config();
        const env: Record<string, string> = c.databaseUrl ? { DATABASE_URL: c.databaseUrl } : { DATA_DIR: c.dataDir };
        try {
          const made = await program({ ...env, FREE_CREDITS: '7' }, 'keys', 'create', '--label', 'p', '--json');
          assert.equal(made.code, 0, made.stderr);
          assert.equal(JSON.parse(made.stdout).credits, 7);
          const unknown = await program(env, 'keys', 'revoke', 'key_0000000000000000');
          assert.equal(unknown.code, 1);
          assert.ok(unknown.stderr.length > 0 && unknown.stdout === '');
          const usage = await program(env, 'keys', 'frobnicate');
          assert.equal(usage.code, 2);
          assert.match(usage.stderr, /^usage: keys <command>/);
        } finally {
          await s.destroy();
        }
      },
    );

    test('the embedded store refuses a second process', { skip: store.name !== 'embedded' && 'PostgreSQL serves many' }, async () => {
      const s = await store.make();
      const l = await s.open();
      try {
        const r = await program({ DATA_DIR: s.config().dataDir }, 'keys', 'list');
        assert.equal(r.code, 1);
        assert.match(r.stderr, /in use by process \d+/);
      } finally {
        await l.close();
        await s.destroy();
      }
    });
  });
}
