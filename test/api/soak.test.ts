// Leaks (DESIGN §4: one context per request, disposed afterwards; the browser recycled after N
// renders): 1,000 small renders, two at a time. Afterwards the Chromium processes, the throwaway
// profile directories and the browser contexts are back to their baseline, and the server's
// memory did not grow beyond a generous bound. About a minute; kept in its own file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';
import { shoot, show } from '../support/http.ts';
import { backTo, idleShape, type PoolShape } from '../support/pool.ts';
import { chromiumDescendants, entries } from '../support/processes.ts';
import { eventually } from '../support/wait.ts';

const TOTAL = 1000;
const WORKERS = 2;
/** A guard against a hang, not a verdict on speed (that is `npm run bench`): a quiet 2-core run takes about 130 s. */
const HANG_GUARD_MS = 600_000;
const RSS_GROWTH_LIMIT = 300 * 1024 * 1024;

let srv: TestServer;
let tmp: string;
const savedTmp = process.env.TMPDIR;

before(async () => {
  // The server's Chromium profiles go to os.tmpdir(): a private one makes them countable while
  // other processes on the machine create their own.
  tmp = mkdtempSync(path.join(os.tmpdir(), 'api-soak-'));
  chmodSync(tmp, 0o711); // as root, Chromium runs as an unprivileged user: it must reach its profile here
  process.env.TMPDIR = tmp;
  srv = await startTestServer({ FREE_CREDITS: String(TOTAL + 100), BROWSER_RECYCLE_AFTER: '400' });
});

after(async () => {
  await srv?.close();
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(tmp, { recursive: true, force: true });
});

const body = (i: number) => ({
  html: `<body style="margin:0;background:hsl(${i % 360},70%,50%)">${i}</body>`,
  viewport: { width: 16, height: 16 },
  waitUntil: 'load',
  blockCookieBanners: false,
});

async function run(n: number, offset: number): Promise<{ ok: number; failures: string[] }> {
  let next = 0;
  let ok = 0;
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (next < n) {
        const i = offset + next++;
        const r = await shoot(srv.url, body(i));
        if (r.status === 200) ok++;
        else failures.push(`#${i}: ${show(r)}`);
      }
    }),
  );
  return { ok, failures };
}

interface Baseline {
  chromium: number;
  profiles: number;
  shape: PoolShape;
  rss: number;
}

async function measure(): Promise<Baseline> {
  const shape = await idleShape(srv, 20_000);
  return { chromium: chromiumDescendants().length, profiles: entries(tmp, 'shot-chromium-').length, shape, rss: process.memoryUsage().rss };
}

test(`${TOTAL} small renders leave no processes, directories, contexts or memory behind`, { timeout: HANG_GUARD_MS }, async () => {
  const warm = await run(30, 0);
  assert.deepEqual(warm.failures, []);
  const base = await measure();
  assert.ok(base.chromium > 0, 'the browser is a child of this process');
  assert.equal(base.profiles, 1, 'one throwaway profile directory');

  const started = Date.now();
  const { ok, failures } = await run(TOTAL, 30);
  const ms = Date.now() - started;
  assert.deepEqual(failures.slice(0, 10), [], `${failures.length} of ${TOTAL} failed`);
  assert.equal(ok, TOTAL);
  console.log(`# soak: ${TOTAL} renders in ${ms} ms (${(ms / TOTAL).toFixed(1)} ms each, ${WORKERS} at a time)`);

  // Settled again: the same shape as before (the browser was recycled in between: 1,030 renders).
  const shape = await backTo(srv, base.shape, 20_000);
  assert.deepEqual(shape, base.shape, 'browser contexts and pages back to the baseline');
  assert.ok(
    await eventually(() => chromiumDescendants().length === base.chromium, 20_000, 200),
    `chromium processes back to ${base.chromium}: ${chromiumDescendants().length}`,
  );
  assert.ok(
    await eventually(() => entries(tmp, 'shot-chromium-').length === base.profiles, 10_000, 200),
    `profile directories back to ${base.profiles}: ${entries(tmp, 'shot-chromium-')}`,
  );
  assert.equal(srv.server.pool.inFlight, 0);
  assert.equal(srv.server.pool.queueDepth, 0);
  const rss = process.memoryUsage().rss;
  console.log(`# soak: rss ${(base.rss / 1048576).toFixed(0)} MiB -> ${(rss / 1048576).toFixed(0)} MiB`);
  assert.ok(rss - base.rss < RSS_GROWTH_LIMIT, `rss grew by ${((rss - base.rss) / 1048576).toFixed(0)} MiB`);
});
