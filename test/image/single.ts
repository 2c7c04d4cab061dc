// One container of the image, started as compose.yaml starts a replica (test/image/replica.ts), and
// what users of browser images meet first: the fonts, the sandbox, the HEALTHCHECK, processes left
// behind (zombies) and the drain on SIGTERM. Each check prints one line (test/image/report.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CHECKS } from '../../scripts/cluster/haproxy.ts';
import type { Fixture } from '../support/fixture.ts';
import { page } from '../support/fixture.ts';
import { show } from '../support/http.ts';
import { decode, keep, sniffType } from '../support/image.ts';
import { eventually, sleep } from '../support/wait.ts';
import { durationSeconds } from './compose.ts';
import { podman } from './engine.ts';
import { glyphPage, glyphViewport, judgeGlyphs } from './glyphs.ts';
import { metric, quickHtml, readyz, send, slowHtml, steadyLoad, tally } from './load.ts';
import { chromiumType, containerProcs, describeChromium, isChromium, isServer, signal, type ContainerProc } from './procs.ts';
import { check } from './report.ts';
import { COMPOSE_ENV, GRACE_S, startImageReplica, SVC, type ImageReplica } from './replica.ts';

/** The image's user (Dockerfile: USER node). */
const IMAGE_UID = 1000;
// The browser is recycled every 40 renders here (default 500), so that a hundred captures replace
// it twice: where the old browser's processes would be left behind, if anything were.
const RECYCLE_AFTER = 40;

export async function singleContainerChecks(image: string, fx: Fixture, databaseUrl: string): Promise<void> {
  let c: ImageReplica | undefined;
  const overrides = {
    DATABASE_URL: databaseUrl,
    EGRESS_ALLOW: fx.hostPort,
    RATE_LIMIT_PER_MINUTE: '0',
    FREE_CREDITS: '100000',
    BROWSER_RECYCLE_AFTER: String(RECYCLE_AFTER),
  };
  const up = await check("container starts as compose.yaml says (its environment, security_opt, tmpfs, the image's user)", async () => {
    const t0 = Date.now();
    c = await startImageReplica(image, 'solo', overrides);
    const ms = Date.now() - t0;
    const launched = c
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"browser launched"'));
    assert.ok(launched, 'a "browser launched" line');
    const ps = await containerProcs(c);
    const server = ps.find(isServer);
    assert.ok(server, `the server process: ${ps.map((p) => p.args.join(' ')).join(' | ')}`);
    assert.equal(ps.find((p) => p.pid === 1)?.args[0], '/usr/bin/tini', 'tini is PID 1');
    assert.equal(server.ppid, 1, "the server is tini's child");
    assert.equal(server.uid, IMAGE_UID, "the server runs as the image's user");
    assert.equal(server.seccomp, 0, 'security_opt seccomp=unconfined: no filter on the server (Chromium adds its own to its renderers)');
    const mounts = (await c.exec(['cat', '/proc/self/mounts'])).stdout;
    const tmpfs = [SVC.tmpfs ?? []].flat();
    for (const t of tmpfs) assert.match(mounts, new RegExp(`^tmpfs ${t.split(':')[0]} tmpfs `, 'm'), `tmpfs on ${t}`);
    if (SVC.shm_size) assert.match(mounts, /^shm \/dev\/shm /m, `shm_size ${SVC.shm_size}`);
    return `up in ${ms} ms; tini PID 1, server uid ${server.uid}, seccomp off on the server (${SVC.security_opt?.join(', ')}), tmpfs ${tmpfs.join(', ')}; ${JSON.parse(launched).version}`;
  });
  if (!up || !c) return;
  const ctr = c;

  await check("/healthz names the runtime: the image's Node is the LTS major the project pins (package.json engines)", async () => {
    const health = (await (await fetch(`${ctr.url}/healthz`)).json()) as { node?: string; chromium?: string };
    const major = /\d+/.exec(JSON.parse(readFileSync('package.json', 'utf8')).engines.node)![0];
    assert.match(health.node ?? '', new RegExp(`^v${major}\\.`), `/healthz: ${JSON.stringify(health)}`);
    const inside = (await ctr.exec(['node', '--version'])).stdout.trim();
    assert.equal(inside, health.node, "the container's node --version");
    return `node ${health.node}, ${health.chromium}`;
  });

  await check('capture of Latin, CJK and emoji text: every glyph drawn (pixels: ink, colour, none alike or like tofu)', async () => {
    const url = page(fx, '/glyphs', glyphPage());
    const r = await send(ctr.url, { url, viewport: glyphViewport, waitUntil: 'load' });
    assert.equal(r.status, 200, show(r));
    assert.equal(sniffType(r.body), 'png');
    keep('image-glyphs.png', r.body);
    const { failures, summary } = judgeGlyphs(await decode(r.body));
    assert.deepEqual(failures, [], 'glyphs missing');
    return `url mode through the egress guard to a loopback fixture; ${summary}`;
  });

  await check("a full page larger than /dev/shm (1280 x 16000, 82 MB of pixels; the engine's 64 MB /dev/shm): captured, /dev/shm unused", async () => {
    const shmUsed = async () =>
      Number(
        (
          await ctr.exec(['node', '-e', "const s = require('fs').statfsSync('/dev/shm'); console.log((s.blocks - s.bfree) * s.bsize, s.blocks * s.bsize)"])
        ).stdout.split(' ')[0],
      );
    const shmSize = Number((await ctr.exec(['node', '-e', "const s = require('fs').statfsSync('/dev/shm'); console.log(s.blocks * s.bsize)"])).stdout);
    const tall = {
      html: '<body style="margin:0;height:16000px;background:linear-gradient(#f00,#00f)"></body>',
      viewport: { width: 1280, height: 720 },
      fullPage: true,
      waitUntil: 'load',
    };
    let most = 0;
    let rendering = true;
    const watch = (async () => {
      while (rendering) {
        most = Math.max(most, await shmUsed());
        await sleep(100);
      }
    })();
    const r = await send(ctr.url, tall).finally(() => (rendering = false));
    await watch;
    assert.equal(r.status, 200, show(r));
    const img = await decode(r.body);
    assert.deepEqual([img.width, img.height], [1280, 16000]);
    assert.ok(shmSize < img.width * img.height * 4, `/dev/shm (${shmSize} bytes) is smaller than the frame`);
    assert.ok(most < 1 << 20, `/dev/shm stayed unused (at most ${most} bytes)`);
    return `${img.width} x ${img.height} captured; /dev/shm ${(shmSize / 2 ** 20).toFixed(0)} MiB, at most ${most} bytes used during the render (Chromium's shared memory is memfd: --disable-dev-shm-usage)`;
  });

  await check(
    'BROWSER_SANDBOX=require: Chromium sandboxed (/proc inside the container: renderers under seccomp, own user and network namespaces, only lo)',
    async () => {
      const busy = send(ctr.url, slowHtml(2500));
      assert.ok(await eventually(async () => (await metric(ctr.url, 'screenshot_renders_in_flight')) >= 1, 15_000), 'a render in flight');
      const ps = await containerProcs(ctr);
      const server = ps.find(isServer)!;
      const chromium = ps.filter(isChromium);
      const renderers = chromium.filter((p) => chromiumType(p) === 'renderer');
      assert.equal(COMPOSE_ENV.BROWSER_SANDBOX, 'require', 'compose.yaml sets BROWSER_SANDBOX=require');
      assert.ok(renderers.length > 0, `renderers: ${describeChromium(ps)}`);
      for (const p of chromium) assert.ok(!p.args.includes('--no-sandbox'), `pid ${p.pid} (${chromiumType(p)}) has --no-sandbox`);
      for (const p of chromium) assert.equal(p.uid, IMAGE_UID, `pid ${p.pid} (${chromiumType(p)}) runs as uid ${p.uid}`);
      for (const p of renderers) {
        assert.equal(p.seccomp, 2, `renderer ${p.pid}: seccomp-bpf filter`);
        assert.ok(p.net && p.net !== server.net, `renderer ${p.pid}: a network namespace of its own (${p.net} vs ${server.net})`);
        assert.ok(p.user && p.user !== server.user, `renderer ${p.pid}: a user namespace of its own`);
        assert.deepEqual(p.netdev, ['lo'], `renderer ${p.pid}: no interface but lo`);
      }
      const launched = JSON.parse(
        ctr
          .output()
          .split('\n')
          .find((l) => l.includes('"msg":"browser launched"'))!,
      );
      assert.equal(launched.sandbox, true, 'the server says sandbox: true');
      const r = await busy;
      assert.equal(r.status, 200, show(r));
      return `${renderers.length} renderers: seccomp 2, ${renderers[0]!.net} and ${renderers[0]!.user} (server: ${server.net}), only lo; ${describeChromium(ps)}; none with --no-sandbox`;
    },
  );

  await check("HEALTHCHECK: the image's command passes on a serving container and fails on a stopped server", async () => {
    const hc = (await ctr.inspect('.Config.Healthcheck')) as { Test?: string[]; Timeout?: number } | null;
    assert.ok(hc?.Test?.join(' ').includes('/healthz'), `the image carries its HEALTHCHECK (build with --format docker): ${JSON.stringify(hc)}`);
    const ok = await podman(['healthcheck', 'run', ctr.name]);
    assert.equal(ok.code, 0, `healthy: ${ok.stdout}${ok.stderr}`);
    // A wedged server: SIGSTOP, and the command must fail within its timeout.
    const server = (await containerProcs(ctr)).find(isServer)!;
    await signal(ctr, server.pid, 'SIGSTOP');
    const t0 = Date.now();
    const bad = await podman(['healthcheck', 'run', ctr.name]).finally(() => signal(ctr, server.pid, 'SIGCONT'));
    const badMs = Date.now() - t0;
    assert.notEqual(bad.code, 0, 'unhealthy while the server does not answer');
    // Not a speed bound: the command must end by itself (its own timeout), not hang on the server.
    assert.ok(badMs < 15_000, `the command gave up by itself (${badMs} ms)`);
    assert.ok(await eventually(async () => (await podman(['healthcheck', 'run', ctr.name])).code === 0, 15_000), 'healthy again after SIGCONT');
    return `"${hc!.Test!.slice(1).join(' ').slice(0, 60)}...": healthy; with the server stopped (SIGSTOP) unhealthy after ${badMs} ms; healthy again after SIGCONT`;
  });

  await check(
    `no process left behind: 100 captures (browser recycled every ${RECYCLE_AFTER}), renderers killed mid-capture, the browser killed: no zombies, no orphans`,
    async () => {
      const before = await containerProcs(ctr);
      const load = steadyLoad(ctr.url, 2, () => quickHtml(), 50);
      const got = await load.done;
      const t = tally(got);
      assert.equal(t.failed, 0, `100 captures: ${t.statuses}`);
      // Renderer crashes: every renderer killed (SIGKILL, as the OOM killer does: Chromium's own
      // handler ignores a SIGSEGV sent by kill()), the one of a page being captured among them.
      const slow = send(ctr.url, slowHtml(4000));
      assert.ok(await eventually(async () => (await metric(ctr.url, 'screenshot_renders_in_flight')) >= 1, 15_000), 'a render in flight');
      const renderers = (await containerProcs(ctr)).filter((p) => chromiumType(p) === 'renderer');
      assert.ok(renderers.length > 0, 'renderers to crash');
      for (const r of renderers) await signal(ctr, r.pid, 'SIGKILL');
      const crashed = await slow;
      // The browser killed outright: its children lose their parent and are re-parented to PID 1.
      const browser = (await containerProcs(ctr)).find((p) => isChromium(p) && chromiumType(p) === 'browser');
      assert.ok(browser, 'the browser process');
      await signal(ctr, browser.pid, 'SIGKILL');
      const after = await send(ctr.url, quickHtml());
      assert.equal(after.status, 200, `a capture after the crashes: ${show(after)}`);
      let ps: ContainerProc[] = [];
      const clean = await eventually(
        async () => {
          ps = await containerProcs(ctr);
          return leftBehind(ps).length === 0;
        },
        20_000,
        250,
      );
      assert.ok(
        clean,
        `left behind: ${leftBehind(ps)
          .map((p) => `${p.pid} ${p.state} ppid ${p.ppid} ${chromiumType(p)}`)
          .join('; ')}`,
      );
      const restarts = await fetch(`${ctr.url}/metrics`)
        .then((m) => m.text())
        .then((m) =>
          m
            .split('\n')
            .filter((l) => l.startsWith('screenshot_browser_restarts_total'))
            .join(', '),
        );
      return `100 captures, 0 failed; ${renderers.length} renderers killed (SIGKILL), the capture in flight answered ${crashed.status}${crashed.json?.error ? ` ${crashed.json.error}` : ''}; browser SIGKILLed, next capture 200; then 0 zombies, 0 orphans (${describeChromium(before)} before, ${describeChromium(ps)} after; ${restarts})`;
    },
  );

  await check(`SIGTERM under steady load (podman stop, grace ${GRACE_S} s): /readyz 503 at once, drained with no failed request, exit 0`, async () => {
    const drainS = Number(COMPOSE_ENV.DRAIN_SECONDS);
    // The load keeps coming for as long as the shipped HAProxy checks take to mark a replica down
    // (fall + 1 intervals), as it would behind the balancer, and then goes elsewhere.
    const detectMs = (CHECKS.check_fall + 1) * durationSeconds(CHECKS.check_interval) * 1000;
    const load = steadyLoad(ctr.url, 3, () => quickHtml());
    const slow = [send(ctr.url, slowHtml(3000)), send(ctr.url, slowHtml(3000))];
    assert.ok(await eventually(() => load.got.length >= 6, 30_000), 'load under way');
    assert.ok(await eventually(async () => (await metric(ctr.url, 'screenshot_renders_in_flight')) >= 1, 15_000), 'renders in flight');
    const inFlight = (await metric(ctr.url, 'screenshot_renders_in_flight')) + (await metric(ctr.url, 'screenshot_queue_depth'));
    const t0 = Date.now();
    const stopped = ctr.stop();
    let notReadyMs = -1;
    let message = '';
    void (async () => {
      while (notReadyMs < 0 && Date.now() - t0 < 10_000) {
        const rz = await readyz(ctr.url);
        if (rz.status === 503) [notReadyMs, message] = [Date.now() - t0, rz.message ?? ''];
        else await sleep(100);
      }
    })();
    await sleep(detectMs);
    const got = await load.stop();
    const slowReplies = await Promise.all(slow);
    await stopped;
    const code = await ctr.exited;
    const exitMs = Date.now() - t0;
    const t = tally([...got, ...slowReplies]);
    assert.match(ctr.output(), new RegExp(`SIGTERM: draining for ${drainS} s`), 'tini passed SIGTERM on: the server drained');
    assert.ok(notReadyMs >= 0, '/readyz answered 503 while the server was still serving');
    assert.match(message, /draining/);
    assert.equal(t.failed, 0, `no failed request: ${t.statuses}`);
    for (const r of slowReplies) assert.equal(r.status, 200, `a render in flight at SIGTERM finished: ${show(r)}`);
    assert.equal(code, 0, `exit status 0 (not killed at the end of the grace period: 137):\n${ctr.output().slice(-1500)}`);
    return `DRAIN_SECONDS ${drainS}: ${t.sent} requests (steady load from before SIGTERM until ${detectMs} ms after it, the balancer's detection time), ${t.failed} failed; ${inFlight} in flight or queued at SIGTERM; /readyz 503 "${message}" ${notReadyMs} ms after it; exit 0 after ${exitMs} ms`;
  });
}

/** Zombies, and Chromium processes whose parent is gone (re-parented to tini, PID 1). */
function leftBehind(ps: ContainerProc[]): ContainerProc[] {
  return ps.filter((p) => p.state === 'Z' || (isChromium(p) && p.ppid === 1));
}
