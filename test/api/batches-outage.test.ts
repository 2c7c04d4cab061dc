// PostgreSQL stopped for 15 s in the middle of a batch, then started again on the same data and
// port (a PostgreSQL of this test's own: scripts/setup-postgres.sh pause/resume). While it is away,
// synchronous captures answer 503 overloaded with Retry-After at once, never a hang and never
// billed; afterwards the batch completes with every item succeeded once and billed once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { CONNECT_TIMEOUT_MS } from '../../server/store/unavailable.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { call, shoot, show } from '../support/http.ts';
import { eventually, sleep } from '../support/wait.ts';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/setup-postgres.sh');
const OUTAGE_MS = 15_000;
/**
 * A guard against a hang, not a speed target: the server gives up a connection attempt after
 * CONNECT_TIMEOUT_MS (a refused one fails at once), so a refusal comes within it, with slack for a
 * busy machine; a request held by the outage would run to the render budget (8 s) and beyond.
 */
const PROMPT_MS = CONNECT_TIMEOUT_MS + 3000;

let pgDir = '';
let url = '';
let setupError = '';
try {
  const out = execFileSync('bash', [SCRIPT, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  url = /TEST_DATABASE_URL=(\S+)/.exec(out)?.[1] ?? '';
  pgDir = /PG_TEST_DIR=(\S+)/.exec(out)?.[1] ?? '';
} catch (e) {
  setupError = `no PostgreSQL of its own for this test (scripts/setup-postgres.sh start failed: ${(e as Error).message.split('\n')[0]})`;
}
const postgres = (cmd: 'pause' | 'resume' | 'stop') => execFileSync('bash', [SCRIPT, cmd, pgDir], { stdio: ['ignore', 'ignore', 'pipe'] });

let srv: TestServer;

before(async () => {
  if (setupError) return;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('CREATE DATABASE outage');
  await admin.end();
  const u = new URL(url);
  u.pathname = '/outage';
  srv = await startTestServer({ DATABASE_URL: u.href, FREE_CREDITS: '1000', RENDER_CONCURRENCY: '2', RENDER_BUDGET_MS: '8000' });
});

after(async () => {
  await srv?.close();
  if (pgDir) postgres('stop');
});

const item = (i: number) => ({
  html: `<style>html,body{margin:0;background:#${((i * 40503) % 0xffffff).toString(16).padStart(6, '0')}}</style>`,
  viewport: { width: 32, height: 24 },
});

test(
  'PostgreSQL away for 15 s mid-batch: synchronous captures get 503 + Retry-After at once, unbilled; the batch completes, nothing lost or billed twice',
  { skip: setupError || false, timeout: 240_000 },
  async () => {
    const credits = async () => Number((await shoot(srv.url, item(1000))).headers.get('x-credits-remaining'));
    const before = await credits();
    const n = 30;
    const r = await call(srv.url, '/v1/batches', { requests: Array.from({ length: n }, (_, i) => item(i)) });
    assert.equal(r.status, 202, show(r));
    const id = r.json.id as string;
    const state = async () => (await call(srv.url, `/v1/batches/${id}`, undefined, { method: 'GET' })).json;
    assert.ok(await eventually(async () => (await state()).counts.succeeded >= 3, 60_000, 50), 'the batch is under way');
    const atStop = (await state()).counts;
    assert.ok(atStop.pending > 0, `the batch is not over when PostgreSQL stops: ${JSON.stringify(atStop)}`);

    postgres('pause');
    const stopped = Date.now();
    const answers: Array<{ status: number; retryAfter: string | null; ms: number; error: string }> = [];
    while (Date.now() - stopped < OUTAGE_MS) {
      const t = Date.now();
      const a = await shoot(srv.url, item(2000 + answers.length));
      answers.push({ status: a.status, retryAfter: a.headers.get('retry-after'), ms: Date.now() - t, error: a.json?.error });
      await sleep(500);
    }
    postgres('resume');

    assert.ok(answers.length >= 10, `captures were tried during the outage: ${answers.length}`);
    for (const a of answers) {
      assert.equal(a.status, 503, JSON.stringify(a));
      assert.equal(a.error, 'overloaded');
      assert.ok(Number(a.retryAfter) > 0, `Retry-After: ${JSON.stringify(a)}`);
      assert.ok(a.ms < PROMPT_MS, `answered at once, not held: ${JSON.stringify(a)}`);
    }

    let b: any;
    assert.ok(
      await eventually(
        async () => {
          const g = await call(srv.url, `/v1/batches/${id}`, undefined, { method: 'GET' });
          if (g.status !== 200) return false;
          b = g.json;
          return b.counts.pending === 0;
        },
        150_000,
        500,
      ),
      `the batch completes once PostgreSQL is back: ${JSON.stringify(b?.counts)}`,
    );
    assert.equal(b.state, 'done');
    assert.deepEqual(
      b.counts,
      { total: n, succeeded: n, failed: 0, cancelled: 0, pending: 0 },
      JSON.stringify(b.items.filter((i: any) => i.state !== 'succeeded')),
    );
    for (const i of b.items) assert.equal(i.credits, 1, `item ${i.index} billed once`);
    for (const i of [0, n - 1]) assert.equal((await call(srv.url, `/v1/batches/${id}/items/${i}`, undefined, { method: 'GET' })).status, 200);
    // The batch's n, the two probes; the captures refused during the outage cost nothing.
    assert.equal(before - (await credits()), n + 1, `answers during the outage: ${JSON.stringify(answers.map((a) => [a.status, a.ms]))}`);
  },
);
