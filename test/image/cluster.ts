// The reference deployment from the image: replicas (containers started as compose.yaml starts
// them) behind HAProxy running the project's one template (scripts/cluster/haproxy.ts, with the
// health-check timing compose ships), on one PostgreSQL. A rolling restart under steady load, as
// an orchestrator does it: `podman stop` (SIGTERM through tini, the stop grace period) of one
// replica while its successor starts, the balancer pointed at the successor once the old one has
// exited. Then the ledger, exactly. Replicas run on the host's network, so HAProxy's servers are
// loopback ports (compose.cfg's DNS discovery of `screenshot` needs Compose's network).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { CHECKS, startBalancer, type Haproxy } from '../../scripts/cluster/haproxy.ts';
import { page, type Fixture } from '../support/fixture.ts';
import type { Reply } from '../support/http.ts';
import { show } from '../support/http.ts';
import { eventually } from '../support/wait.ts';
import { metric, quickHtml, readyz, send, steadyLoad, tally, viewport } from './load.ts';
import { check, notRun } from './report.ts';
import { COMPOSE_ENV, startImageReplica, type ImageReplica } from './replica.ts';

const REPLICAS = 2;
const FREE = 100_000;
const slot = (i: number) => `r${i + 1}`;

export async function clusterChecks(image: string, fx: Fixture, databaseUrl: string, haproxyBinary: string): Promise<void> {
  const overrides = { DATABASE_URL: databaseUrl, EGRESS_ALLOW: fx.hostPort, RATE_LIMIT_PER_MINUTE: '0', FREE_CREDITS: String(FREE) };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'image-cluster-'));
  const replicas: ImageReplica[] = [];
  const seen: Reply[] = []; // every reply through this deployment, for the ledger
  let lb: Haproxy | undefined;
  const waitFor = async (ok: (s: Record<string, string>) => boolean, ms: number, what: string) => {
    let last: Record<string, string> = {};
    const done = await eventually(async () => ok((last = await lb!.states().catch(() => last))), ms, 50);
    if (!done) throw new Error(`the balancer did not reach "${what}" within ${ms} ms: ${JSON.stringify(last)}\n${lb!.output().slice(-2000)}`);
  };
  const card = { url: page(fx, '/card', '<body style="margin:0;background:#fc0"></body>'), viewport, waitUntil: 'load' };
  try {
    const up = await check(
      `cluster: ${REPLICAS} replicas of the image behind HAProxy (the project's template, compose's check timing) on one PostgreSQL`,
      async () => {
        const t0 = Date.now();
        replicas.push(...(await Promise.all(Array.from({ length: REPLICAS }, (_, i) => startImageReplica(image, slot(i), overrides)))));
        lb = await startBalancer({
          binary: haproxyBinary,
          dir,
          logLevel: 'info',
          servers: replicas.map((r, i) => ({ name: slot(i), port: r.port })),
        });
        await waitFor((s) => Object.keys(s).length === REPLICAS && Object.values(s).every((x) => x === 'UP'), 60_000, 'every replica UP');
        const first = await send(lb.url, card);
        seen.push(first);
        assert.equal(first.status, 200, show(first));
        return `up in ${Date.now() - t0} ms; checks every ${CHECKS.check_interval}, down after ${CHECKS.check_fall}; a capture through the balancer: ${first.body.length} bytes`;
      },
    );
    if (!up || !lb) {
      notRun('rolling restart', 'the cluster did not start');
      notRun('ledger', 'the cluster did not start');
      return;
    }
    const balancer = lb;

    await check(
      `rolling restart under steady load (podman stop of each replica while its successor starts; DRAIN_SECONDS ${COMPOSE_ENV.DRAIN_SECONDS}): 0 failed requests`,
      async () => {
        const load = steadyLoad(balancer.url, 3, (i) => (i % 4 === 3 ? card : quickHtml()));
        try {
          assert.ok(await eventually(() => load.got.length >= 6, 60_000), 'load under way');
          const steps: string[] = [];
          for (let i = 0; i < REPLICAS; i++) {
            const old = replicas[i]!;
            const name = slot(i);
            const inFlight = await metric(old.url, 'screenshot_renders_in_flight');
            const t0 = Date.now();
            const stopped = old.stop();
            const successor = startImageReplica(image, `${name}-next`, overrides);
            assert.ok(await eventually(() => /SIGTERM: draining/.test(old.output()), 10_000), `${name} handled SIGTERM:\n${old.output().slice(-1000)}`);
            const rz = await readyz(old.url);
            assert.equal(rz.status, 503, `${name} /readyz while draining`);
            await waitFor((s) => s[name] === 'DOWN', 20_000, `${name} DOWN`);
            const outMs = Date.now() - t0;
            await stopped;
            const code = await old.exited;
            assert.equal(code, 0, `${name} exits 0 after draining:\n${old.output().slice(-1500)}`);
            const exitMs = Date.now() - t0;
            const next = await successor;
            replicas[i] = next;
            await balancer.setAddress(name, '127.0.0.1', next.port);
            await waitFor((s) => s[name] === 'UP', 60_000, `${name} UP again`);
            steps.push(
              `${name}: ${inFlight} in flight at SIGTERM, out of rotation after ${outMs} ms, exit 0 after ${exitMs} ms, successor in rotation after ${Date.now() - t0} ms`,
            );
            const n = load.got.length;
            assert.ok(await eventually(() => load.got.length >= n + 3, 30_000), 'the load goes on');
          }
          const got = await load.stop();
          seen.push(...got);
          const t = tally(got);
          assert.equal(
            t.failed,
            0,
            `no request failed: ${t.statuses}\n${balancer
              .output()
              .split('\n')
              .filter((l) => /is (DOWN|UP)| (5\d\d|-1) /.test(l))
              .slice(-20)
              .join('\n')}`,
          );
          return `${t.sent} requests, ${t.failed} failed (${t.billed} rendered, ${t.cached} cached); ${steps.join('; ')}`;
        } finally {
          seen.push(...(await load.stop()).filter((r) => !seen.includes(r)));
        }
      },
    );

    await check('ledger: credits spent equal the successful non-cached captures, exactly', async () => {
      const t = tally(seen);
      for (const r of seen.filter((x) => x.status === 200))
        assert.equal(r.headers.get('x-credits-charged'), r.headers.get('x-cache') === 'hit' ? '0' : '1', 'charged 1 exactly when rendered');
      for (const r of seen.filter((x) => x.status !== 200)) assert.equal(r.headers.get('x-credits-charged'), null, 'failures are never billed');
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const [{ spent }] = (await db.query(`SELECT count(*)::int AS spent FROM ledger WHERE kind = 'capture'`)).rows;
        const [{ credits }] = (await db.query('SELECT credits::int AS credits FROM accounts')).rows;
        assert.equal(spent, t.billed, 'one ledger row per rendered capture');
        assert.equal(credits, FREE - t.billed, 'the balance moved by exactly that');
        return `${t.sent} requests: ${t.billed} rendered, ${t.cached} cached, ${t.failed} failed; ledger ${spent} captures, balance ${FREE} -> ${credits}`;
      } finally {
        await db.end();
      }
    });
  } finally {
    await lb?.stop();
    await Promise.all(replicas.map((r) => r.stop().catch(() => {})));
    rmSync(dir, { recursive: true, force: true });
  }
}
