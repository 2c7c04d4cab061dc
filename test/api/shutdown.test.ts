// The real entry point as operators run it: `node --import tsx server/main.ts` as a child process
// (PORT=0: the port is read from its log line). SIGTERM while a render is in flight: the render
// completes 200, new connections are not served, the process exits 0 and none of its Chromium
// processes or profile directories remain (README "Operations"). Its log never contains the key
// or a request body (DESIGN §3).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { shoot, show } from '../support/http.ts';
import { decode, near } from '../support/image.ts';
import { rendersHeld } from '../support/metrics.ts';
import { entries, processesMentioning } from '../support/processes.ts';
import { startServerProcess, TEST_KEY, testEnv } from '../support/server.ts';
import { eventually } from '../support/wait.ts';

let fx: Fixture;
const cleanup: string[] = [];

before(async () => {
  fx = await startFixture();
  page(
    fx,
    '/late',
    `<body style="margin:0;background:#c00"><script>setTimeout(() => { document.body.style.background = 'rgb(0,170,0)';
    document.body.insertAdjacentHTML('beforeend', '<i id=late></i>'); }, 2000);</script></body>`,
  );
});

after(async () => {
  await fx?.close();
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

interface Child {
  proc: ChildProcess;
  url: string;
  tmp: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts server/main.ts with its own TMPDIR, so that its Chromium processes and dirs are findable. */
async function startChild(extra: Record<string, string> = {}): Promise<Child> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'api-test-child-'));
  chmodSync(tmp, 0o711); // as root, Chromium runs as an unprivileged user: it must reach its profile here
  cleanup.push(tmp);
  const env = testEnv({ DATA_DIR: path.join(tmp, 'data'), LOG_LEVEL: 'info', TMPDIR: tmp, ...extra }, [fx.hostPort]);
  const r = await startServerProcess(env);
  // npm start runs a batch worker beside the API (server/supervise/): up, with its own browser
  assert.ok(await eventually(() => r.output().includes('batch worker started'), 60_000), 'the batch worker started');
  return { proc: r.proc, url: r.url, tmp, output: r.output, exited: r.exited };
}

test('SIGTERM during a render: the render completes 200, the process exits 0, no Chromium of it remains', async () => {
  const child = await startChild();
  try {
    assert.ok(processesMentioning(child.tmp).length > 0, 'its Chromium runs with a profile under its TMPDIR');
    // npm start's two browsers: the API process's and the batch worker's (server/supervise/)
    assert.equal(entries(child.tmp, 'shot-chromium-').length, 2, 'one profile directory per browser');
    const secret = `BODY-SECRET-${Date.now()}`;
    const hitsBefore = fx.hits.filter((h) => h === '/late').length;
    const inflight = shoot(child.url, { url: `${fx.origin}/late`, waitForSelector: '#late', waitUntil: 'load', viewport: { width: 64, height: 48 } });
    const inflightHtml = shoot(child.url, {
      html: `<body style="margin:0;background:rgb(0,170,0)"><!-- ${secret} --><script>setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<i id=late></i>'), 2000)</script></body>`,
      waitForSelector: '#late',
      waitUntil: 'load',
      viewport: { width: 64, height: 48 },
    });
    assert.ok(await eventually(() => fx.hits.filter((h) => h === '/late').length > hitsBefore, 10_000), 'the render is in flight');
    assert.ok(await eventually(async () => (await rendersHeld(child.url)) === 2, 10_000), 'the server holds both renders');
    const signalled = Date.now();
    child.proc.kill('SIGTERM');
    assert.ok(await eventually(() => child.output().includes('SIGTERM'), 10_000), 'the server took the signal');

    // After SIGTERM: no new work is taken (the listener is closed, or the answer is 503).
    const late = await shoot(child.url, { html: '<p>x', waitUntil: 'load' }).catch((e: Error) => e);
    if (!(late instanceof Error)) assert.equal(late.status, 503, `a request after SIGTERM: ${show(late)}`);

    const [r, rHtml] = await Promise.all([inflight, inflightHtml]);
    assert.equal(r.status, 200, `the render in flight completed: ${show(r)}`);
    assert.ok(near((await decode(r.body)).at(32, 24), [0, 170, 0]), 'and is the finished page');
    assert.equal(rHtml.status, 200, show(rHtml));

    const { code, signal } = await child.exited;
    assert.equal(signal, null, 'exited on its own');
    assert.equal(code, 0, `exit code 0:\n${child.output().slice(-2000)}`);
    assert.ok(Date.now() - signalled < 15_000, 'exited promptly');
    assert.ok(await eventually(() => processesMentioning(child.tmp).length === 0, 5000), `no Chromium of it remains: ${processesMentioning(child.tmp)}`);
    assert.deepEqual(entries(child.tmp, 'shot-chromium-'), [], 'its profile directories were removed');

    const log = child.output();
    assert.ok(log.includes('SIGTERM'), 'the shutdown is logged');
    assert.ok(!log.includes(TEST_KEY), 'the log never contains the API key');
    assert.ok(!log.includes(secret), 'the log never contains a request body');
  } finally {
    if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
  }
});

test('SIGTERM when idle: exits 0 at once and leaves nothing behind', async () => {
  const child = await startChild();
  try {
    const r = await shoot(child.url, { html: '<p>x', waitUntil: 'load', viewport: { width: 16, height: 16 } });
    assert.equal(r.status, 200, show(r));
    const signalled = Date.now();
    child.proc.kill('SIGTERM');
    const { code } = await child.exited;
    assert.equal(code, 0, child.output().slice(-2000));
    assert.ok(Date.now() - signalled < 8000, `exited in ${Date.now() - signalled} ms`);
    assert.ok(await eventually(() => processesMentioning(child.tmp).length === 0, 5000), 'no Chromium of it remains');
    assert.deepEqual(entries(child.tmp, 'shot-chromium-'), []);
  } finally {
    if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
  }
});

test('SIGTERM with DRAIN_SECONDS: /readyz 503 at once, requests still served (Connection: close), then the listener closes and the process exits 0', async () => {
  const child = await startChild({ DRAIN_SECONDS: '5' });
  try {
    const body = { html: '<p>x', waitUntil: 'load', viewport: { width: 16, height: 16 } };
    assert.equal((await fetch(`${child.url}/readyz`)).status, 200);
    const signalled = Date.now();
    child.proc.kill('SIGTERM');
    const ready = await eventually(async () => (await fetch(`${child.url}/readyz`)).status === 503, 1000, 20);
    assert.ok(ready, '/readyz answers 503 within a second of SIGTERM');
    const rz = await (await fetch(`${child.url}/readyz`)).json();
    assert.equal(rz.error, 'overloaded');
    assert.match(rz.message, /draining/);
    assert.ok(Date.now() - signalled < 5000, 'a request sent within the drain period (test precondition)');
    const during = await shoot(child.url, body, { keepAlive: true }); // asks to keep it: the drain is what closes it
    assert.equal(during.status, 200, `served while draining: ${show(during)}`);
    assert.equal(during.headers.get('connection'), 'close', 'and the connection is closed after it');
    const { code } = await child.exited;
    assert.equal(code, 0, child.output().slice(-2000));
    assert.ok(Date.now() - signalled >= 5000, 'not before the drain period ended');
    assert.ok((await shoot(child.url, body).catch((e: Error) => e)) instanceof Error, 'then nothing listens');
    assert.match(child.output(), /draining for 5 s/);
  } finally {
    if (child.proc.exitCode === null) child.proc.kill('SIGKILL');
  }
});
