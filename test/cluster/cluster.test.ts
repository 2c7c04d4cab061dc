// The reference deployment with real processes on loopback (docs/operations.md "Running at
// scale"), in the roles of compose.yaml: three API replicas of server/main.ts (RUN_BATCHES=false)
// behind HAProxy rendered from the one template, and two batch workers (server/worker.ts) apart
// from it, all on one PostgreSQL (scripts/cluster/launch.ts, what `npm run cluster` runs),
// RENDER_CONCURRENCY=1, small pages, bounded counts. In order, on one cluster:
//   cache      a capture stored by one replica is a free hit on another; identical requests
//              arriving together on three replicas render once and are charged once (single flight)
//   rolling    SIGTERM one replica at a time under steady load, bring it back: /readyz 503 at
//              once, the balancer takes it out, it exits 0; not one request fails
//   crash      SIGKILL a replica mid-capture: what it held fails (never a 502) and is not billed,
//              nothing else fails, the balancer takes it out within its check interval
//   saturation more load than the replicas take: each answer is a capture or a 503 with
//              Retry-After, never a 502 or a hang; a full replica says so on /readyz
//   batch      a 24-item batch (POST /v1/batches through HAProxy) runs on the workers only (the
//              API replicas' metrics show no item, the workers' show theirs); one worker killed
//              (SIGKILL) mid-item: synchronous captures meanwhile all answer 200, the item runs
//              again on the other worker, every item succeeded and billed once, every webhook
//              event delivered
//   ledger     credits spent = successful non-cached captures and batch items, exactly, across
//              all of the above
// Figures are printed (t.diagnostic) for the integrator's note.
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { postgresStore, PG_SKIP, type TestStore } from '../support/stores.ts';
import { startCluster, type Cluster } from '../../scripts/cluster/launch.ts';
import type { HaproxyParams } from '../../scripts/cluster/haproxy.ts';
import { Webhook } from 'standardwebhooks';
import { page, startFixture, webhookReceiver, type Fixture } from '../support/fixture.ts';
import { call, shootOrFailure, show, webhookSecretOf, type Reply } from '../support/http.ts';
import { chromiumDescendants } from '../support/processes.ts';
import { TEST_KEY } from '../support/server.ts';
import { eventually, sleep } from '../support/wait.ts';

const HAPROXY = process.env.HAPROXY_PATH || '/usr/sbin/haproxy';
const SKIP = PG_SKIP || (existsSync(HAPROXY) ? false : `no HAProxy at ${HAPROXY}: run scripts/setup-haproxy.sh (scripts/test.sh does)`);
const FREE = 100_000;
// Health checks every 500 ms, out after 2 failures: a draining replica (503 at once) is out
// within ~1.5 s, under DRAIN_SECONDS (3). The timeout exceeds /readyz's own 2 s wait.
const CHECKS: Partial<HaproxyParams> = { check_interval: '500ms', check_timeout: '3s', check_fall: 2, check_rise: 1 };
const DOWN_WITHIN_MS = 3 * 500;
const SLACK_MS = 5000; // a loaded 2-core machine delays checks and processes
const viewport = { width: 32, height: 24 };

let fx: Fixture;
let hooks: ReturnType<typeof webhookReceiver> = [];
let store: TestStore;
let cluster: Cluster;
let databaseUrl: string;

/** Every answer through the cluster, for the ledger. */
const replies: Reply[] = [];
/** Credits the batch test's items spent, for the ledger. */
let batchBilled = 0;
let seq = 0;

/** POST through `base` (default: the balancer) with a timeout; a hang is a failure of its own. */
async function send(body: object, base = cluster.url): Promise<Reply> {
  const r = await shootOrFailure(base, body);
  replies.push(r);
  return r;
}

const quickHtml = () => ({ html: `<body style="margin:0;background:#0a0"><!-- ${++seq} --></body>`, viewport, waitUntil: 'load' as const });
/** An html page that keeps its render busy for `ms` (waitForSelector on an element added late). */
const slowHtml = (ms: number) => ({
  html: `<body style="margin:0;background:#00a"><!-- ${++seq} --><script>setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<i id=late></i>'), ${ms})</script></body>`,
  waitForSelector: '#late',
  viewport,
  waitUntil: 'load' as const,
});

/** Client loops sending requests back to back until stop() (bounded: at most `max` each). */
function steadyLoad(clients: number, body: (i: number) => object, max = 400) {
  let on = true;
  const got: Reply[] = [];
  const loops = Array.from({ length: clients }, async () => {
    for (let i = 0; on && i < max; i++) got.push(await send(body(i)));
  });
  return {
    got,
    async stop() {
      on = false;
      await Promise.all(loops);
      return got;
    },
  };
}

function summary(rs: Reply[]) {
  return {
    sent: rs.length,
    ok: rs.filter((r) => r.status === 200).length,
    failed: rs.filter((r) => r.status !== 200).length,
    billed: rs.filter((r) => r.status === 200 && r.headers.get('x-credits-charged') === '1').length,
    cached: rs.filter((r) => r.status === 200 && r.headers.get('x-cache') === 'hit').length,
    statuses: [...new Set(rs.map((r) => `${r.status}${r.json?.error ? ` ${r.json.error}` : ''}`))].join(', '),
  };
}

/** HAProxy's log lines that explain a failure: state changes and answers other than 200. */
function balancerLog(): string {
  return cluster.haproxy
    .output()
    .split('\n')
    .filter((l) => /is (DOWN|UP)|no server available| (5\d\d|-1) \d+ /.test(l))
    .slice(-40)
    .join('\n');
}

/** True while the process exists and is not a zombie (an exited child its new parent has not reaped). */
function running(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

async function readyz(base: string): Promise<{ status: number; message?: string }> {
  const r = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
  if (!r) return { status: -1 };
  const j = (await r.json().catch(() => ({}))) as { message?: string };
  return { status: r.status, message: j.message };
}

/** The sum of every series of `name` (all its label values). */
async function metricSum(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

describe('reference deployment: API replicas behind HAProxy and batch workers on one PostgreSQL', { skip: SKIP }, () => {
  before(async () => {
    fx = await startFixture();
    // A page whose server answers after 1 s: identical requests arriving together overlap.
    fx.route('/slow-card', async (_req, res) => {
      await sleep(1000);
      res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }).end('<body style="margin:0;background:#c0c"></body>');
    });
    page(fx, '/card', '<body style="margin:0;background:#fc0"></body>');
    hooks = webhookReceiver(fx);
    store = await postgresStore();
    databaseUrl = store.config().databaseUrl!;
    const t0 = Date.now();
    cluster = await startCluster({
      replicas: 3,
      workers: 2,
      databaseUrl,
      haproxyBinary: HAPROXY,
      checks: CHECKS,
      haproxyLogLevel: 'info', // request lines too, for the diagnostics of a failure
      env: {
        ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
        API_KEYS: TEST_KEY,
        FREE_CREDITS: String(FREE),
        EGRESS_ALLOW: fx.hostPort,
        LOG_LEVEL: 'info',
        RATE_LIMIT_PER_MINUTE: '0',
        RENDER_CONCURRENCY: '1',
        QUEUE_LIMIT: '2',
        CACHE_TTL_SECONDS: '300',
        DRAIN_SECONDS: '3',
      },
    });
    console.log(`# cluster of 3 API replicas + HAProxy + 2 workers up in ${Date.now() - t0} ms`);
  });

  after(async () => {
    await cluster?.stop();
    await fx?.close();
    await store?.destroy();
  });

  test('one cache for all replicas: stored by one, a free hit on another; identical requests together render once', async (t: TestContext) => {
    const [r1, r2, r3] = cluster.replicas.map((r) => r.url) as [string, string, string];
    const card = { url: `${fx.origin}/card`, viewport, waitUntil: 'load' };
    const first = await send(card, r1);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-cache'), 'miss');
    assert.equal(first.headers.get('x-credits-charged'), '1');
    const other = await send(card, r2);
    assert.equal(other.status, 200);
    assert.equal(other.headers.get('x-cache'), 'hit', 'replica 2 serves what replica 1 stored');
    assert.equal(other.headers.get('x-credits-charged'), '0', 'free');
    assert.deepEqual(other.body, first.body, 'the same image');

    const slow = { url: `${fx.origin}/slow-card`, viewport, waitUntil: 'load' };
    const hitsBefore = fx.hits.filter((h) => h === '/slow-card').length;
    const together = await Promise.all([send(slow, r1), send(slow, r2), send(slow, r3), send(slow), send(slow)]);
    for (const r of together) assert.equal(r.status, 200);
    const charged = together.filter((r) => r.headers.get('x-credits-charged') === '1');
    assert.equal(charged.length, 1, `one render, one charge: ${together.map((r) => r.headers.get('x-cache')).join(',')}`);
    assert.equal(fx.hits.filter((h) => h === '/slow-card').length - hitsBefore, 1, 'the page was loaded once');
    for (const r of together) assert.deepEqual(r.body, charged[0]!.body);
    const joined = (await Promise.all([r1, r2, r3].map((b) => fetch(`${b}/metrics`).then((m) => m.text()))))
      .flatMap((m) => m.split('\n'))
      .filter((l) => l.startsWith('screenshot_cache_requests_total{result="joined"}'))
      .reduce((n, l) => n + Number(l.split(' ')[1]), 0);
    t.diagnostic(
      `cross-replica hit: stored by r1, hit on r2 (${other.body.length} bytes, charged 0); single flight: 5 identical requests on 3 replicas -> 1 render, 1 charge, ${joined} waited for it`,
    );
  });

  test('rolling restart under steady load: each replica drains and comes back; zero failed requests', async (t: TestContext) => {
    const card = { url: `${fx.origin}/card`, viewport, waitUntil: 'load' };
    const load = steadyLoad(3, (i) => (i % 4 === 3 ? card : quickHtml()));
    // Whatever fails below, the load stops here, so that it does not spill into the next test.
    t.after(() => load.stop());
    await eventually(() => load.got.length >= 6, 30_000);
    const steps: string[] = [];
    for (let i = 0; i < cluster.replicas.length; i++) {
      const old = cluster.replicas[i]!;
      const name = old.name;
      const inFlight = await metric(old.url, 'screenshot_renders_in_flight');
      const signalled = Date.now();
      const exited = cluster.stopReplica(i, 'SIGTERM');
      const fresh = cluster.startReplica(i, exited);
      // A signal is asynchronous: a request already on its way (on a keep-alive connection) can be
      // read in the same turn of the replica's event loop, before the handler. So wait until the
      // replica has handled it (its log line, written as draining begins); from then on /readyz
      // says 503 while the replica still serves.
      assert.ok(await eventually(() => /SIGTERM: draining/.test(old.output()), 5000), `${name} handled SIGTERM:\n${old.output().slice(-1000)}`);
      const rz = await readyz(old.url);
      assert.equal(rz.status, 503, `${name} /readyz right after SIGTERM`);
      assert.match(rz.message ?? '', /draining/);
      await cluster.waitFor((s) => s[name] === 'DOWN', DOWN_WITHIN_MS + SLACK_MS, `${name} DOWN`);
      const downAfter = Date.now() - signalled;
      const { code, signal } = await exited;
      assert.equal(signal, null);
      assert.equal(code, 0, `${name} exits 0 after draining:\n${old.output().slice(-2000)}`);
      await fresh;
      await cluster.waitFor((s) => s[name] === 'UP', 30_000, `${name} UP again`);
      steps.push(`${name}: ${inFlight} in flight at SIGTERM, out of rotation after ${downAfter} ms, back after ${Date.now() - signalled} ms`);
      await eventually(() => load.got.length >= 3, 5000);
    }
    const got = await load.stop();
    const s = summary(got);
    t.diagnostic(`rolling restart: ${steps.join('; ')}`);
    t.diagnostic(`rolling restart: sent ${s.sent}, failed ${s.failed}, billed ${s.billed}, cached ${s.cached}`);
    assert.equal(
      s.failed,
      0,
      `no request failed during the rolling restart: ${s.statuses} ${JSON.stringify(got.filter((r) => r.status !== 200).map((r) => r.json))}\n${balancerLog()}`,
    );
    assert.ok(s.sent >= 20, `steady load kept going (${s.sent} requests)`);
  });

  test('crash: SIGKILL a replica mid-capture; what it held fails unbilled, nothing else fails, it is out within the check interval', async (t: TestContext) => {
    const victim = 1;
    const dead = cluster.replicas[victim]!;
    // One slow capture per replica (least connections spreads them), each render ~3 s.
    const slow = [0, 1, 2].map(() => send(slowHtml(3000)));
    const busy = await eventually(
      async () => {
        const n = await Promise.all(cluster.replicas.map((r) => metric(r.url, 'screenshot_renders_in_flight')));
        return n.every((x) => x === 1);
      },
      20_000,
      100,
    );
    assert.ok(busy, 'each replica is rendering one capture');
    const held = (await metric(dead.url, 'screenshot_renders_in_flight')) + (await metric(dead.url, 'screenshot_queue_depth'));
    const itsChromium = chromiumDescendants(dead.pid);
    assert.ok(itsChromium.length > 0, 'its Chromium runs');
    const killed = Date.now();
    dead.proc.kill('SIGKILL');
    await dead.exited; // the kernel has closed its sockets: from now on it refuses connections
    t.after(async () => {
      // Back to three replicas for what follows, whatever happened here.
      await cluster.startReplica(victim);
      await cluster.waitFor((st) => st[dead.name] === 'UP', 60_000, `${dead.name} UP again`);
    });
    // Steady load from the moment it is gone: requests sent to the dead replica before the
    // balancer notices are refused at connect and sent elsewhere. (One arriving in the instant
    // of its death, accepted by the kernel but never read, fails like the ones it held.)
    const logFrom = cluster.haproxy.output().length;
    // Within what the two others take while each renders its slow capture (QUEUE_LIMIT 2 each):
    // a refusal here would be saturation, not the crash.
    const burst = Promise.all(Array.from({ length: 2 }, () => send(quickHtml())));
    const load = steadyLoad(1, () => quickHtml());
    await cluster.waitFor((s) => s[dead.name] === 'DOWN', DOWN_WITHIN_MS + SLACK_MS, `${dead.name} DOWN`);
    const outAfter = Date.now() - killed;
    await sleep(1000);
    const others = [...(await burst), ...(await load.stop())];
    // HAProxy's log: actconn/feconn/beconn/srv_conn/retries, "+" when sent to another server.
    const retried = cluster.haproxy
      .output()
      .slice(logFrom)
      .split('\n')
      .filter((l) => / 200 .* \d+\/\d+\/\d+\/\d+\/\+[1-9]/.test(l)).length;
    const slowReplies = await Promise.all(slow);
    const failedSlow = slowReplies.filter((r) => r.status !== 200);
    const s = summary([...slowReplies, ...others]);
    t.diagnostic(
      `crash: ${dead.name} held ${held}; out of rotation ${outAfter} ms after SIGKILL (checks every 500 ms, fall 2); ${retried} refused by it at connect and captured by another; sent ${s.sent}, failed ${s.failed} (${s.statuses}), billed ${s.billed}, cached ${s.cached}`,
    );
    assert.equal(summary(others).failed, 0, `nothing else fails: ${summary(others).statuses}\n${balancerLog()}`);
    assert.ok(failedSlow.length <= held, `only what it held fails (${failedSlow.length} <= ${held})`);
    for (const r of failedSlow) {
      // HAProxy answers 500 render_failed (deploy/haproxy/replica-lost.http) on a fresh client
      // connection; on a reused keep-alive one it closes it without an answer, which tells the
      // client that it may send the request again (HAProxy's design: haproxy/haproxy#2375).
      const closed = r.status === -1 && /other side closed/.test(r.json?.message ?? '');
      assert.ok(
        (r.status === 500 && r.json?.error === 'render_failed') || closed,
        `a capture lost with its replica: 500 render_failed or a closed connection, never a 502: ${r.status} ${JSON.stringify(r.json)}\n${balancerLog()}`,
      );
    }
    assert.ok(outAfter <= DOWN_WITHIN_MS + SLACK_MS, `out within the check interval (${outAfter} ms)`);
    const alive = () => itsChromium.filter(running);
    assert.ok(await eventually(() => alive().length === 0, 15_000), `its Chromium did not outlive it: ${alive()}`);
  });

  test('saturation: every answer is a capture or a 503 with Retry-After, never a 502 or a hang; a full replica says so on /readyz', async (t: TestContext) => {
    // 3 replicas x (1 rendering + QUEUE_LIMIT 2 waiting) = 9 admitted at most; send 18 at once.
    let fullSeen = '';
    let watching = true;
    const watcher = (async () => {
      while (watching && !fullSeen) {
        for (const r of cluster.replicas) {
          const rz = await readyz(r.url);
          if (rz.status === 503 && /queue is full/.test(rz.message ?? '')) fullSeen = `${r.name}: ${rz.message}`;
        }
        await sleep(50);
      }
    })();
    const burst = await Promise.all(Array.from({ length: 18 }, () => send(slowHtml(1200))));
    watching = false;
    await watcher;
    const s = summary(burst);
    t.diagnostic(
      `saturation: 18 at once on 9 places: ${s.ok} captured, ${burst.filter((r) => r.status === 503).length} refused 503 (${s.statuses}); ${fullSeen || 'no /readyz saw a full queue'}`,
    );
    for (const r of burst) {
      assert.ok(r.status === 200 || r.status === 503, `a capture or a 503, got ${r.status} ${JSON.stringify(r.json)}`);
      if (r.status === 503) {
        assert.equal(r.json?.error, 'overloaded');
        assert.ok(Number(r.headers.get('retry-after')) >= 1, 'with Retry-After');
      }
    }
    assert.ok(s.ok >= 3, 'the replicas kept capturing');
    assert.ok(
      burst.some((r) => r.status === 503),
      'the excess was refused',
    );
    assert.ok(fullSeen, 'a replica whose queue was full said so on /readyz');
    await cluster.waitFor((st) => Object.values(st).every((x) => x === 'UP'), 30_000, 'every replica UP after the burst');
  });

  test('batch on the workers: submitted through HAProxy, run by the workers only; a worker killed (SIGKILL) mid-item, captures still answer, the batch completes, billed once, no webhook lost', async (t: TestContext) => {
    const n = 24;
    const requests = Array.from({ length: n }, (_, i) => ({
      // each item keeps its renderer busy for 300 ms, so that the kill below lands while one runs
      html: `<body style="margin:0;background:#${((i * 40503) % 0xffffff).toString(16).padStart(6, '0')}"><script>for (const t = Date.now(); Date.now() - t < 300; );</script></body>`,
      viewport,
      waitUntil: 'load',
    }));
    const apiRunning = () => Promise.all(cluster.replicas.map((x) => metric(x.url, 'screenshot_batch_items_running')));
    const t0 = Date.now();
    const r = await call(cluster.url, '/v1/batches', { requests, webhook: { url: `${fx.origin}/hook` } });
    assert.equal(r.status, 202, show(r));
    const id = r.json.id as string;
    const get = async () => {
      const g = await call(cluster.url, `/v1/batches/${id}`, undefined, { method: 'GET' });
      assert.equal(g.status, 200, show(g));
      return g.json;
    };
    // Synchronous captures through HAProxy from now until the batch is done: none may fail.
    const load = steadyLoad(1, () => quickHtml());
    t.after(() => load.stop());
    // Killed while it runs an item (claimed, not settled: the gauge, not renders in flight, which
    // also count a finished item's page still closing), once a fifth of the batch is done.
    let victim = -1;
    const apiSeen: number[] = [];
    assert.ok(
      await eventually(
        async () => {
          apiSeen.push(...(await apiRunning()));
          if ((await get()).counts.succeeded < n / 5) return false;
          const busy = await Promise.all(cluster.workers.map((w) => metric(w.url, 'screenshot_batch_items_running')));
          victim = busy.findIndex((x) => x >= 1);
          return victim >= 0;
        },
        60_000,
        50,
      ),
      'the batch is under way on the workers',
    );
    const dead = cluster.workers[victim]!;
    const survivor = cluster.workers[1 - victim]!;
    dead.proc.kill('SIGKILL');
    const killedAfter = Date.now() - t0;
    await dead.exited;
    const atKill = (await get()).counts;
    let b: any;
    assert.ok(
      await eventually(
        async () => {
          apiSeen.push(...(await apiRunning()));
          b = await get();
          return b.counts.pending === 0;
        },
        90_000,
        250,
      ),
      `the batch completes without ${dead.name}: ${JSON.stringify(b?.counts)}`,
    );
    const took = Date.now() - t0;
    const sync = await load.stop();
    assert.deepEqual(b.counts, { total: n, succeeded: n, failed: 0, cancelled: 0, pending: 0 });
    for (const i of b.items) assert.equal(i.credits, 1, `item ${i.index} billed once`);
    const again = b.items.filter((i: any) => i.runs >= 2).map((i: any) => i.index);
    assert.ok(again.length >= 1, `the item ${dead.name} held ran again on ${survivor.name}`);

    // From outside: the API replicas never held an item nor ran one; the workers did.
    assert.ok(
      apiSeen.every((x) => x === 0),
      `no API replica ever had an item running (${apiSeen.length} readings)`,
    );
    const apiRuns = await Promise.all(cluster.replicas.map((x) => metricSum(x.url, 'screenshot_batch_item_run_seconds_count')));
    assert.deepEqual(apiRuns, [0, 0, 0], 'no API replica ran an item');
    const survivorRuns = await metricSum(survivor.url, 'screenshot_batch_item_run_seconds_count');
    assert.ok(survivorRuns >= 1, `${survivor.name} ran items (${survivorRuns}); ${dead.name} was running one when killed`);
    assert.equal(summary(sync).failed, 0, `synchronous captures meanwhile: ${summary(sync).statuses}\n${balancerLog()}`);

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const rows = (await db.query(`SELECT reservation_id FROM ledger WHERE reservation_id LIKE $1`, [`bitem_${id}_%`])).rows;
      assert.equal(rows.length, n, 'one ledger row per item');
      assert.equal(new Set(rows.map((x) => x.reservation_id)).size, n, 'none twice');
      batchBilled += rows.length;
    } finally {
      await db.end();
    }
    for (const i of [0, n - 1]) assert.equal((await call(cluster.url, `/v1/batches/${id}/items/${i}`, undefined, { method: 'GET' })).status, 200);

    // Webhooks: an event whose delivery was in flight on the killed worker is made again (with
    // its webhook-id) once its job's heartbeat has stopped, so each item's event and
    // batch.completed arrive, signed with the secret the API shows the key.
    const wh = new Webhook(await webhookSecretOf(cluster.url));
    const events = () => hooks.filter((h) => h.body.includes(id)).map((h) => ({ id: h.headers['webhook-id'], ...(wh.verify(h.body, h.headers) as any) }));
    const distinct = () => new Set(events().map((e) => `${e.type} ${e.data.index ?? ''}`));
    assert.ok(await eventually(() => distinct().size === n + 1, 40_000, 100), `every event delivered: ${distinct().size} of ${n + 1}`);
    const got = events();
    assert.deepEqual(
      [...new Set(got.filter((e) => e.type === 'capture.succeeded').map((e) => e.data.index))].sort((x, y) => x - y),
      Array.from({ length: n }, (_, i) => i),
    );
    assert.equal(new Set(got.filter((e) => e.type === 'batch.completed').map((e) => e.id)).size, 1, 'batch.completed once (by webhook-id)');
    t.diagnostic(
      `batch on the workers: ${n} items, ${dead.name} killed after ${killedAfter} ms at ${JSON.stringify(atKill)}; done in ${took} ms; items run twice: ${again.join(', ')}; ${survivor.name} ran ${survivorRuns}, the API replicas 0 (${apiSeen.length} readings of their running gauge, all 0); ${sync.length} synchronous captures meanwhile, all 200; ${got.length} webhook deliveries for ${n + 1} events; ${n} credits`,
    );
  });

  test('ledger: credits spent equal successful non-cached captures and batch items, exactly', async (t: TestContext) => {
    const s = summary(replies);
    for (const r of replies.filter((x) => x.status === 200)) {
      assert.equal(r.headers.get('x-credits-charged'), r.headers.get('x-cache') === 'hit' ? '0' : '1', 'charged 1 exactly when rendered');
    }
    for (const r of replies.filter((x) => x.status !== 200)) assert.equal(r.headers.get('x-credits-charged'), null, 'failures are never billed');
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const [{ spent }] = (await db.query(`SELECT count(*)::int AS spent FROM ledger WHERE kind = 'capture'`)).rows;
      const [{ credits, held }] = (await db.query('SELECT credits::int AS credits, held FROM accounts')).rows;
      t.diagnostic(
        `ledger: ${s.sent} requests, ${s.ok} captures (${s.billed} rendered, ${s.cached} cached), ${s.failed} failed; ledger: ${spent} captures spent, balance ${FREE} -> ${credits}, ${held} still held (the killed replica's, released by the sweep when its lease expires)`,
      );
      assert.equal(spent, s.billed + batchBilled, 'one ledger row per rendered capture and per batch item');
      assert.equal(credits, FREE - s.billed - batchBilled, 'the balance moved by exactly that');
    } finally {
      await db.end();
    }
  });
});
