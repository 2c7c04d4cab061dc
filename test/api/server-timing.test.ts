// Server-Timing (README "The response"): one metric per render step, each step with one unique
// documented name (STEP_LABELS, gathered from the steps by server/render/pipeline.ts), the same as the step label of the
// screenshot_step_seconds metric. A render that loads, waits for idle and for a selector, scrolls
// lazy content in and waits for it again used to repeat names (`loading`/`loading2`,
// `waiting`/`waiting2`/`waiting3`).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { STEP_LABELS } from '../../server/render/pipeline.ts';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const NAMES = new Set(STEP_LABELS.map((l) => l.name));
import { call, shoot, show } from '../support/http.ts';

let fx: Fixture;
let srv: TestServer;

before(async () => {
  fx = await startFixture();
  // a lazy image far below the fold: the fullPage scroll starts its request, so lazy-idle runs
  page(
    fx,
    '/tall',
    '<body style="margin:0"><div id="x" style="height:6000px;background:#0a0"></div><img loading="lazy" src="/lazy-img" width="10" height="10"></body>',
  );
  page(fx, '/lazy-img', 'not an image');
  srv = await startTestServer({}, fx);
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

/** The metrics of a Server-Timing header: name, dur and desc. */
function parse(header: string): Array<{ name: string; dur: number; desc: string }> {
  return header.split(/,\s*(?=[\w-]+;)/).map((m) => {
    const [name, ...params] = m.split(';');
    const p = Object.fromEntries(params.map((x) => x.split('=')).map(([k, v]) => [k, (v ?? '').replace(/^"|"$/g, '')]));
    return { name: name!.trim(), dur: Number(p.dur), desc: p.desc ?? '' };
  });
}

test('every step of a render has one unique documented name; the metric labels are the same names', async () => {
  const r = await shoot(srv.url, {
    url: `${fx.origin}/tall`,
    fullPage: true,
    waitUntil: 'networkidle0',
    waitForSelector: '#x',
    viewport: { width: 64, height: 48 },
  });
  assert.equal(r.status, 200, show(r));
  const steps = parse(r.headers.get('server-timing') ?? '');
  const names = steps.map((s) => s.name);
  assert.deepEqual(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
    `no name repeats: ${names}`,
  );
  for (const s of steps) {
    assert.ok(NAMES.has(s.name), `${s.name} is a documented step`);
    assert.ok(Number.isFinite(s.dur) && s.dur >= 0, `${s.name} has a duration`);
  }
  for (const n of ['address', 'load', 'idle', 'selector', 'lazy-scroll', 'lazy-idle', 'banners', 'capture']) assert.ok(names.includes(n), `${n} in ${names}`);
  assert.equal(steps.find((s) => s.name === 'idle')?.desc, 'waiting for networkidle0', 'the description says what was waited for');
  assert.equal(steps.find((s) => s.name === 'selector')?.desc, 'waiting for waitForSelector', 'the description names the field, never the selector');

  const metrics = (await call(srv.url, '/metrics', undefined, { method: 'GET', key: null })).body.toString('utf8');
  const labels = new Set([...metrics.matchAll(/screenshot_step_seconds_count\{step="([^"]+)"\}/g)].map((m) => m[1]));
  for (const n of names) assert.ok(labels.has(n), `metric label ${n} (${[...labels]})`);
  for (const l of labels) assert.ok(l === 'queue' || NAMES.has(l), `metric label ${l} is a documented step`);
});
