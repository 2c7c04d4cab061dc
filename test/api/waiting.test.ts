// Waiting (spec §4.1 rules 5-6, §7 render_timeout, §8): `load`, `networkidle2`, `networkidle0` and
// `waitForSelector`, in html mode AND url mode, against a loopback fixture origin with delayed and
// never-ending endpoints; the render budget ends a render in 504 and the page is torn down.
// The server runs with RENDER_BUDGET_MS=4000 so that a timeout costs 4 s, not 20.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { page, startFixture, type Fixture } from '../support/fixture.ts';
import { startTestServer, testEnv, type TestServer } from '../support/server.ts';
import { shoot, show, type Reply } from '../support/http.ts';
import { decode, near } from '../support/image.ts';
import { backTo, idleShape, type PoolShape } from '../support/pool.ts';
import { eventually, sleep } from '../support/wait.ts';

const BUDGET_MS = 4000;
const RED = [204, 0, 0];
const GREEN = [0, 170, 0];

let fx: Fixture;
let srv: TestServer;
let base: string;
let seq = 0;
let idle: PoolShape;

before(async () => {
  fx = await startFixture();
  // Every test page is served at /p/<name>?...: the same markup in url mode as in html mode.
  page(fx, '/p/net', (u) => netPage(Number(u.searchParams.get('n')), Number(u.searchParams.get('ms')), u.searchParams.get('tag') ?? ''));
  page(fx, '/p/hang', (u) => hangPage(Number(u.searchParams.get('n')), u.searchParams.get('tag') ?? ''));
  page(fx, '/p/late', (u) => latePage(Number(u.searchParams.get('ms'))));
  fx.route('/p/slowdoc', async (_req, res, u) => {
    await sleep(Number(u.searchParams.get('ms')));
    res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end(latePage(Number(u.searchParams.get('late'))));
  });
  srv = await startTestServer({ RENDER_BUDGET_MS: String(BUDGET_MS) }, fx);
  base = srv.url;
  idle = await idleShape(srv);
});

after(async () => {
  await srv?.close();
  await fx?.close();
});

/** At the load event, starts `n` requests that take `ms` (0: that never end); paints the page green when all are done. */
function netPage(n: number, ms: number, tag: string): string {
  const endpoint = ms ? `slow?ms=${ms}&` : 'hang?';
  return `<!doctype html><body style="margin:0;background:rgb(${RED})"><script>
    addEventListener('load', () => {
      const all = Array.from({ length: ${n} }, (_, i) => fetch('${fx.origin}/${endpoint}i=' + i + '&tag=${tag}').then((r) => r.text()));
      Promise.all(all).then(() => { document.body.style.background = 'rgb(${GREEN})'; });
    });</script></body>`;
}

/** Paints green at once, then opens `n` requests that never end (long polls). */
function hangPage(n: number, tag: string): string {
  return `<!doctype html><body style="margin:0;background:rgb(${GREEN})"><script>
    addEventListener('load', () => { for (let i = 0; i < ${n}; i++) fetch('${fx.origin}/hang?i=' + i + '&tag=${tag}').catch(() => {}); });
    </script></body>`;
}

/** Adds a green #late element after `ms`. */
function latePage(ms: number): string {
  return `<!doctype html><body style="margin:0;background:rgb(${RED})"><script>
    setTimeout(() => { const d = document.createElement('div'); d.id = 'late';
      d.style.cssText = 'position:fixed;inset:0;background:rgb(${GREEN})'; document.body.append(d); }, ${ms});
    </script></body>`;
}

const viewport = { width: 64, height: 48 };

/** Sends the same page in html mode (markup inline) or url mode (served by the fixture). */
function req(mode: 'html' | 'url', name: 'net' | 'hang' | 'late', params: Record<string, string | number>, extra: object = {}) {
  const q = new URLSearchParams(Object.entries({ ...params, tag: `t${++seq}` }).map(([k, v]) => [k, String(v)]));
  const src =
    mode === 'url'
      ? { url: `${fx.origin}/p/${name}?${q}` }
      : {
          html:
            name === 'net'
              ? netPage(+q.get('n')!, +q.get('ms')!, q.get('tag')!)
              : name === 'hang'
                ? hangPage(+q.get('n')!, q.get('tag')!)
                : latePage(+q.get('ms')!),
        };
  return { ...src, viewport, ...extra };
}

async function colour(r: Reply): Promise<number[]> {
  assert.equal(r.status, 200, show(r));
  return (await decode(r.body)).at(32, 24).slice(0, 3);
}

function assertTimeout(r: Reply, stage?: RegExp): void {
  assert.equal(r.status, 504, show(r));
  assert.equal(r.json?.error, 'render_timeout');
  assert.equal(typeof r.json?.message, 'string');
  if (stage) assert.match(r.json.message, stage);
  assert.ok(r.ms >= BUDGET_MS - 200, `ended at the budget, not before (${r.ms} ms)`);
  assert.ok(r.ms < BUDGET_MS + 3000, `ended soon after the budget (${r.ms} ms)`);
}

/** After a render: the page was torn down (its context and page closed, its connections gone). */
async function assertTornDown(): Promise<void> {
  const now = await backTo(srv, idle);
  assert.deepEqual(now, idle, 'browser contexts and pages back to the idle pool');
  assert.ok(await eventually(() => fx.openHangs() === 0, 3000), `the page's long polls were closed (${fx.openHangs()} open)`);
}

for (const mode of ['html', 'url'] as const) {
  describe(`waitUntil in ${mode} mode (spec §4.1 rule 5)`, () => {
    test('load: captures at the load event, while 3 requests started by it are still in flight', async () => {
      // The requests never end: waiting for them would end in 504 at the budget, however fast the machine.
      const r = await shoot(base, req(mode, 'net', { n: 3, ms: 0 }, { waitUntil: 'load' }));
      assert.ok(near(await colour(r), RED), 'not yet green');
    });

    test('networkidle2: waits while more than 2 requests are in flight', async () => {
      const r = await shoot(base, req(mode, 'net', { n: 3, ms: 1200 }, { waitUntil: 'networkidle2' }));
      assert.ok(near(await colour(r), GREEN), 'painted after the 3 requests');
      assert.ok(r.ms >= 1200, `${r.ms} ms`);
    });

    test('networkidle2: does not wait for 2 requests in flight', async () => {
      const r = await shoot(base, req(mode, 'net', { n: 2, ms: 2000 }, { waitUntil: 'networkidle2' }));
      assert.ok(near(await colour(r), RED), 'captured while 2 requests were still in flight');
    });

    test('networkidle0: waits until no request is in flight', async () => {
      const r = await shoot(base, req(mode, 'net', { n: 2, ms: 1500 }, { waitUntil: 'networkidle0' }));
      assert.ok(near(await colour(r), GREEN));
      assert.ok(r.ms >= 1500 + 400, `the 500 ms quiet window follows the last request (${r.ms} ms)`);
    });

    test('networkidle0 with 3 slow requests', async () => {
      const r = await shoot(base, req(mode, 'net', { n: 3, ms: 1000 }, { waitUntil: 'networkidle0' }));
      assert.ok(near(await colour(r), GREEN));
    });

    test('the default waitUntil is networkidle2', async () => {
      const three = await shoot(base, req(mode, 'net', { n: 3, ms: 1000 }));
      assert.ok(near(await colour(three), GREEN), 'waited for 3 requests');
      const two = await shoot(base, req(mode, 'net', { n: 2, ms: 2000 }));
      assert.ok(near(await colour(two), RED), 'did not wait for 2');
    });

    test('one never-ending long poll: networkidle2 succeeds', async () => {
      const r = await shoot(base, req(mode, 'hang', { n: 1 }, { waitUntil: 'networkidle2' }));
      assert.ok(near(await colour(r), GREEN));
      assert.ok(r.ms < BUDGET_MS, `${r.ms} ms`);
      await assertTornDown();
    });

    test('one never-ending long poll: networkidle0 ends in 504 render_timeout, and the page is torn down', async () => {
      const r = await shoot(base, req(mode, 'hang', { n: 1 }, { waitUntil: 'networkidle0' }));
      assertTimeout(r, /networkidle0/);
      await assertTornDown();
      const next = await shoot(base, req(mode, 'net', { n: 0, ms: 0 }, { waitUntil: 'load' }));
      assert.equal(next.status, 200, `the next request succeeds: ${show(next)}`);
    });

    test('three never-ending long polls: networkidle2 ends in 504 render_timeout', async () => {
      const r = await shoot(base, req(mode, 'hang', { n: 3 }, { waitUntil: 'networkidle2' }));
      assertTimeout(r, /networkidle2/);
      await assertTornDown();
    });
  });

  describe(`waitForSelector in ${mode} mode (spec §4.1 rule 6)`, () => {
    test('an element added after 800 ms is waited for and captured', async () => {
      const r = await shoot(base, req(mode, 'late', { ms: 800 }, { waitForSelector: '#late', waitUntil: 'load' }));
      assert.ok(near(await colour(r), GREEN), 'the late element is in the image');
      assert.ok(r.ms >= 800, `${r.ms} ms`);
    });

    test('with networkidle2 as well', async () => {
      const r = await shoot(base, req(mode, 'late', { ms: 1200 }, { waitForSelector: 'div#late' }));
      assert.ok(near(await colour(r), GREEN));
      assert.doesNotMatch(r.headers.get('server-timing') ?? '', /div#late/, 'Server-Timing names the step, not the selector');
    });

    test('an element that never appears: 504 render_timeout; the next request succeeds', async () => {
      const never = `#never-${'waitSelectorCanary'.repeat(500)}`; // 9,000 characters: never quoted back
      const r = await shoot(base, req(mode, 'late', { ms: 60_000 }, { waitForSelector: never, waitUntil: 'load' }));
      assertTimeout(r, /waiting for waitForSelector/);
      assert.ok(!(r.body.toString('utf8') + [...r.headers].join('\n')).includes('waitSelectorCanary'), 'neither the message nor a header quotes the selector');
      await assertTornDown();
      const next = await shoot(base, req(mode, 'late', { ms: 0 }, { waitForSelector: '#late', waitUntil: 'load' }));
      assert.ok(near(await colour(next), GREEN));
    });
  });
}

describe('the render budget (spec §4.1 rule 6, §8)', () => {
  test('the budget covers the whole capture: a 2.5 s document plus a 2.5 s wait is over 4 s', async () => {
    const r = await shoot(base, { url: `${fx.origin}/p/slowdoc?ms=2500&late=2500&tag=t${++seq}`, waitForSelector: '#late', waitUntil: 'load', viewport });
    assertTimeout(r);
  });

  test('a document slower than the budget: 504 render_timeout', async () => {
    const r = await shoot(base, { url: `${fx.origin}/p/slowdoc?ms=${BUDGET_MS + 2000}&late=0&tag=t${++seq}`, waitUntil: 'load', viewport });
    assertTimeout(r, /loading/);
    await assertTornDown();
  });

  test('a render that needs 3 s of its 4 s succeeds', async () => {
    const r = await shoot(base, { url: `${fx.origin}/p/slowdoc?ms=1500&late=1500&tag=t${++seq}`, waitForSelector: '#late', waitUntil: 'load', viewport });
    assert.ok(near(await colour(r), GREEN));
  });

  test('the default budget is 20 seconds, and it cannot be raised', () => {
    const env = testEnv({ DATA_DIR: '/nonexistent-not-opened' });
    assert.equal(loadConfig(env).renderBudgetMs, 20_000);
    assert.equal(loadConfig({ ...env, RENDER_BUDGET_MS: '4000' }).renderBudgetMs, 4000);
    for (const bad of ['20001', '60000', 'abc', '-1', '999']) {
      assert.throws(
        () => loadConfig({ ...env, RENDER_BUDGET_MS: bad }),
        (e: unknown) => e instanceof ConfigError && /RENDER_BUDGET_MS/.test((e as Error).message),
      );
    }
  });

  test('after all of it, the pool is back to its idle shape', async () => {
    assert.deepEqual(await backTo(srv, idle), idle);
    assert.equal(srv.server.pool.inFlight, 0);
    assert.equal(srv.server.pool.queueDepth, 0);
  });
});
