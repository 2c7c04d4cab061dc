// `node --import tsx bench/failing-hosts.ts [HOSTS] [KINDS]`: a page whose subresources are on
// hosts that fail (names that do not resolve, addresses the guard refuses), loaded in a fresh
// context through the egress guard's proxy (the server's flags) and without it (Chromium's own
// resolver answering nothing, as the peers in the bench run), ROUNDS times each (default 5).
// KINDS: all, or a comma list of https-css, http-js, https-img, http-img-private,
// https-img-private. VERBOSE=1 prints when the proxy's refusals arrived; NETLOG=FILE writes
// Chromium's net log of the proxied browser (a directory the browser's user may write);
// DNS_TIMEOUT / DNS_TRIES set the resolver's c-ares timeout and tries.
// What it showed: the refusals came in bursts ~1 s apart because the proxy's DNS queries were
// dropped by a resolver that answers a burst of ~50 and then a few dozen a second, and c-ares
// asks again only after ~1 s (docs/performance.md, "Hosts that fail").
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchBrowser } from '../server/render/browser.ts';
import { egressLaunchArgs, startEgressGuard } from '../server/egress/index.ts';
import { createDnsResolver } from '../server/egress/resolver.ts';
import { loadConfig } from '../server/config.ts';
import { benchEnv } from './server-env.ts';

const config = loadConfig(benchEnv('/nonexistent'));
const hosts = Number(process.argv[2] ?? 20);
const rounds = Number(process.env.ROUNDS ?? 5);
const verbose = !!process.env.VERBOSE;
const mode = process.argv[3] ?? 'all';
const on = (m: string) => mode === 'all' || mode.split(',').includes(m);
const page = (n: number) => {
  let h = '<!doctype html><html><head>';
  for (let i = 0; i < n; i++) {
    if (on('https-css')) h += `<link rel="stylesheet" href="https://cdn${i}.nonexistent-wp-plugin.com/style.css">`;
    if (on('http-js')) h += `<script src="http://js${i}.nonexistent-tracker.net/t.js"></script>`;
  }
  h += '</head><body><h1>hello</h1>';
  for (let i = 0; i < n; i++) {
    if (on('https-img')) h += `<img src="https://img${i}.nonexistent-cdn.org/a.png">`;
    if (on('http-img-private')) h += `<img src="http://10.0.0.${i + 1}/b.png">`;
    if (on('https-img-private')) h += `<img src="https://10.0.1.${i + 1}/b.png">`;
  }
  return h + '</body></html>';
};
const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page(hosts)));
await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
const origin = `127.0.0.1:${(site.address() as AddressInfo).port}`;
const events: number[] = [];
let t0 = 0;
const dnsOpts = process.env.DNS_TIMEOUT ? { timeoutMs: Number(process.env.DNS_TIMEOUT), tries: Number(process.env.DNS_TRIES ?? 4) } : {};
const guard = await startEgressGuard({ allow: [origin], resolver: createDnsResolver(dnsOpts), log: () => events.push(performance.now() - t0) });
const netlog = process.env.NETLOG ? [`--log-net-log=${process.env.NETLOG}`, '--net-log-capture-mode=Everything'] : [];
const proxied = await launchBrowser({ executablePath: config.chromiumPath, args: [...egressLaunchArgs(guard.proxyPort), ...netlog] });
const direct = await launchBrowser({ executablePath: config.chromiumPath, args: ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'] });
for (const [name, b] of [
  ['proxied', proxied],
  ['direct', direct],
] as const) {
  const loads: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const ctx = await b.browser.createBrowserContext();
    const p = await ctx.newPage();
    events.length = 0;
    t0 = performance.now();
    await p.goto(`http://${origin}/`, { waitUntil: 'load' });
    const ms = performance.now() - t0;
    loads.push(ms);
    await ctx.close();
    const bursts = events.map((e) => Math.round(e / 10) * 10);
    if (verbose) console.log(`${name}: load ${ms.toFixed(0)} ms; ${events.length} refusals at ${[...new Set(bursts)].join(',')}`);
  }
  const s = [...loads].sort((a, b) => a - b);
  console.log(`${name}: load median ${s[s.length >> 1]!.toFixed(0)} ms, max ${s.at(-1)!.toFixed(0)} ms (${loads.map((x) => x.toFixed(0)).join(' ')})`);
}
await proxied.close();
await direct.close();
await guard.close();
site.close();
