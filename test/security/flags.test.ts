// Verifies, on the Chromium we run (CHROMIUM_PATH, default headless-shell), that each flag of
// egressLaunchArgs() has the effect its comment claims, by observing traffic: every check runs a
// probe WITHOUT the flag (the canary must fire: the probe works and the flag is needed) and WITH
// egressLaunchArgs() (the canary must stay silent). Runs only inside its own network namespace
// (run-in-netns.sh); a veth pair created inside the namespace gives WebRTC a non-loopback interface
// to gather candidates on, still with no way out of the namespace.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { execFileSync } from 'node:child_process';
import { startEgressGuard, egressLaunchArgs, type EgressGuard } from '../../server/egress/index.ts';
import { addLoopbackAddresses, assertIsolated } from './lib/netns.ts';
import { tcpCanary, udpCanary, type Canary } from './lib/canary.ts';
import { startDnsServer, type TestDnsServer } from './lib/dns-server.ts';
import { page, udpProbe } from './lib/attacks.ts';
import { launchChromium } from '../support/browser.ts';
import { startFixture, type Fixture } from '../support/fixture.ts';

const PUBLIC = '93.184.216.34';
let guard: EgressGuard;
let chromiumDns: TestDnsServer; // on 127.0.0.1:53, where /etc/resolv.conf points: Chromium's own lookups
let guardDns: TestDnsServer; // the guard's resolver, on another port
let loopCanary: Canary, stun: Canary, quic: Canary, webTransport: Canary;
let site: Fixture;
let sitePort = 0;

before(async () => {
  assertIsolated();
  addLoopbackAddresses([PUBLIC]);
  execFileSync('sh', ['-c', 'ip link add egr0 type veth peer name egr1 && ip addr add 10.99.0.1/24 dev egr0 && ip link set egr0 up && ip link set egr1 up']);
  chromiumDns = await startDnsServer((_n, t) => (t === 'A' ? { addresses: [PUBLIC] } : { addresses: [] }), '127.0.0.1', 53);
  guardDns = await startDnsServer((n, t) =>
    n.endsWith('.example.com') && t === 'A' ? { addresses: [PUBLIC] } : n.endsWith('.example.com') ? { addresses: [] } : 'nxdomain',
  );
  loopCanary = await tcpCanary('127.0.0.1');
  stun = await udpCanary(PUBLIC, 3478);
  quic = await udpCanary(PUBLIC, 443);
  webTransport = await udpCanary(PUBLIC, 4433);
  site = await startFixture({ listen: [{ host: PUBLIC, port: 0 }] });
  const html = (body: string) => (_req: unknown, res: http.ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  site.route('/loopback', html(page(`<img src="http://127.0.0.1:${loopCanary.port}/x"><img src="http://localhost:${loopCanary.port}/y">`)));
  site.route('/udp', html(page(udpProbe(PUBLIC))));
  site.route(
    '/names',
    html(
      page(
        '<link rel=dns-prefetch href="//prefetch.example.com"><link rel=preconnect href="http://preconnect.example.com"><img src="http://img.example.com/x.png">',
        'names',
      ),
    ),
  );
  site.route('/', html(page('ok')));
  sitePort = site.port;
  guard = await startEgressGuard({ allow: [], dnsServers: [guardDns.server], dnsCacheSeconds: 0 });
});
after(async () => {
  await guard?.close();
  await Promise.all([loopCanary, stun, quic, webTransport].map((c) => c?.close()));
  await Promise.all([chromiumDns?.close(), guardDns?.close()]);
  await site?.close();
  execFileSync('ip', ['link', 'del', 'egr0']); // later files in this namespace expect only lo
});

/** Opens url in a browser launched with args, waits, closes; returns nothing (observe canaries). */
async function visit(args: string[], url: string, waitMs = 2500): Promise<string> {
  const chromium = await launchChromium(args);
  try {
    const p = await chromium.browser.newPage();
    await p.goto(url, { timeout: 10_000 }).catch(() => {});
    await new Promise((r) => setTimeout(r, waitMs));
    return await p.title().catch(() => '');
  } finally {
    await chromium.close();
  }
}
const reset = (...c: Canary[]) => c.forEach((x) => (x.hits.length = 0));
const proxyOnly = () => [`--proxy-server=http://127.0.0.1:${guard.proxyPort}`];

test('--proxy-bypass-list=<-loopback>: without it Chromium connects to loopback directly; with it the proxy refuses', async () => {
  reset(loopCanary);
  await visit(proxyOnly(), `http://${PUBLIC}:${sitePort}/loopback`, 500);
  assert.ok(loopCanary.hits.length > 0, 'control: loopback bypasses a proxy by default');
  reset(loopCanary);
  const before = guard.stats().refused;
  await visit(egressLaunchArgs(guard.proxyPort), `http://${PUBLIC}:${sitePort}/loopback`, 500);
  assert.deepEqual(loopCanary.hits, []);
  assert.ok(guard.stats().refused - before >= 2, 'both loopback images were refused by the proxy');
});

test('WebRTC: a proxy alone does not stop STUN over UDP; the ip-handling-policy flag does', async () => {
  reset(stun);
  await visit(proxyOnly(), `http://${PUBLIC}:${sitePort}/udp`);
  assert.ok(stun.hits.length > 0, 'control: WebRTC sends STUN over UDP despite the proxy');
  reset(stun);
  await visit(egressLaunchArgs(guard.proxyPort), `http://${PUBLIC}:${sitePort}/udp`);
  assert.deepEqual(stun.hits, []);
});

test('QUIC: --disable-quic stops forced QUIC (checked without a proxy); with the egress flags no UDP leaves', async () => {
  const force = `--origin-to-force-quic-on=${PUBLIC}:443`;
  reset(quic);
  await visit([force], `https://${PUBLIC}/`, 1000);
  assert.ok(quic.hits.length > 0, 'control: forced QUIC sends UDP');
  reset(quic);
  await visit([force, '--disable-quic'], `https://${PUBLIC}/`, 1000);
  assert.deepEqual(quic.hits, [], '--disable-quic works in this build');
  await visit([...egressLaunchArgs(guard.proxyPort), force], `https://${PUBLIC}/`, 1000);
  assert.deepEqual(quic.hits, []);
});

test('WebTransport (HTTP/3 over UDP) sends nothing with the egress flags', async () => {
  const url = `http://${PUBLIC}:${sitePort}/udp`; // probe opens WebTransport to PUBLIC:443; also try :4433
  reset(quic, webTransport);
  const chromium = await launchChromium(egressLaunchArgs(guard.proxyPort));
  try {
    const p = await chromium.browser.newPage();
    await p.goto(url).catch(() => {});
    await p.evaluate((h) => {
      try {
        new WebTransport(`https://${h}:4433/`).ready.catch(() => {});
      } catch {}
    }, PUBLIC);
    await new Promise((r) => setTimeout(r, 2000));
  } finally {
    await chromium.close();
  }
  assert.deepEqual([...quic.hits, ...webTransport.hits], []);
});

test('--host-resolver-rules: Chromium itself resolves nothing (no DNS leak), names still load through the proxy', async () => {
  chromiumDns.log.length = 0;
  const before = guard.stats().recent.length;
  const title = await visit(egressLaunchArgs(guard.proxyPort), `http://site.example.com:${sitePort}/names`, 1500);
  assert.equal(title, 'names', 'the page loaded by name through the proxy');
  assert.deepEqual(chromiumDns.log, [], 'Chromium made no DNS query of its own');
  const seen = guard
    .stats()
    .recent.slice(before)
    .map((e) => e.origin);
  assert.ok(seen.includes(`site.example.com:${sitePort}`) && seen.includes('img.example.com:80'), JSON.stringify(seen));
});
