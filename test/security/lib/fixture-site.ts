// The battery's "public" web site: an HTTP server on public-looking addresses that exist only on
// `lo` inside the test's network namespace (and, for secure-context features such as service
// workers, on an EGRESS_ALLOW-listed 127.0.0.1 origin). It serves the attack pages, redirects, and
// the isolation probes, and records what it was asked (paths and cookies) so tests can observe
// browser state from outside the image.
import http from 'node:http';
import net from 'node:net';
import crypto from 'node:crypto';
import { NAVIGATION_KINDS, SUBRESOURCE_KINDS, page, udpProbe, type NavigationKind, type SubresourceKind } from './attacks.ts';

export interface SeenRequest {
  method: string;
  path: string;
  cookie: string;
  host: string;
}

export interface FixtureSite {
  /** One origin per listen address, e.g. "http://93.184.216.34:80". */
  readonly origins: string[];
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

const swScript = (to: string) => `
self.addEventListener('install', (e) => { self.skipWaiting(); e.waitUntil(fetch(${JSON.stringify(to)}).catch(() => {})); });
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => { if (e.request.url.includes('/through-sw')) e.respondWith(fetch(${JSON.stringify(to)}).catch(() => new Response('blocked'))); });
`;

/** Sets every kind of state (spec: nothing crosses requests), then reports what it finds next time. */
const isolationPage = (report: string) => page(`
<script src="/cached.js"></script>
<script>
(async () => {
  const found = { cookie: document.cookie, local: localStorage.getItem('k'), session: sessionStorage.getItem('k'), sw: 0, caches: 0, idb: 0 };
  try { found.sw = (await navigator.serviceWorker.getRegistrations()).length; } catch {}
  try { found.caches = (await caches.keys()).length; } catch {}
  try { found.idb = (await indexedDB.databases()).length; } catch {}
  await fetch('${report}?' + new URLSearchParams(Object.entries(found).map(([k, v]) => [k, String(v)])));
  document.cookie = 'planted=1; max-age=3600';
  localStorage.setItem('k', 'planted'); sessionStorage.setItem('k', 'planted');
  try { await (await caches.open('c')).put('/x', new Response('x')); } catch {}
  try { indexedDB.open('planted'); } catch {}
  try { await navigator.serviceWorker.register('/sw.js?to=' + encodeURIComponent('http://127.0.0.1:9/')); } catch {}
  document.body.dataset.done = '1';
  await fetch('${report}?phase=planted');
})();
</script>`, 'isolation');

export async function startFixtureSite(listen: Array<{ host: string; port: number }>): Promise<FixtureSite> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://fixture');
    seen.push({ method: req.method ?? '', path: u.pathname + u.search, cookie: String(req.headers.cookie ?? ''), host: String(req.headers.host ?? '') });
    const to = u.searchParams.get('to') ?? '';
    const html = (body: string, headers: Record<string, string> = {}) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(body);
    const parts = u.pathname.split('/').filter(Boolean);
    if (parts[0] === 'redirect') return void res.writeHead(Number(parts[1]), { location: to, 'content-length': '0' }).end();
    if (parts[0] === 'attack' && parts[1] === 'sub') return html(page(SUBRESOURCE_KINDS[parts[2] as SubresourceKind](to), `sub ${parts[2]}`));
    if (parts[0] === 'attack' && parts[1] === 'nav') return html(page(NAVIGATION_KINDS[parts[2] as NavigationKind](to), `nav ${parts[2]}`));
    if (parts[0] === 'attack' && parts[1] === 'udp') return html(page(udpProbe(to), 'udp'));
    if (parts[0] === 'sw-page') return html(page(`<script>navigator.serviceWorker.register('/sw.js?to=${encodeURIComponent(to)}').then(() => navigator.serviceWorker.ready).then(() => fetch('/through-sw')).catch(() => {})</script>`, 'service worker'));
    if (parts[0] === 'sw.js') return void res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(swScript(to));
    if (parts[0] === 'isolation') return html(isolationPage('/report'), { 'set-cookie': 'fromheader=1; Max-Age=3600; Path=/' });
    if (parts[0] === 'cached.js') return void res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=3600' }).end('window.cachedLoaded = 1;');
    if (parts[0] === 'report') return void res.writeHead(204).end();
    if (parts[0] === 'ok') return html(page('<p>public page</p>', 'ok'));
    res.writeHead(404, { 'content-length': '0' }).end();
  });
  server.on('upgrade', (req, sock) => {
    const accept = crypto.createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    sock.end(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  });
  const servers: http.Server[] = [];
  const origins: string[] = [];
  for (const l of listen) {
    const s = listen.length === 1 ? server : http.createServer((req, res) => server.emit('request', req, res));
    if (s !== server) s.on('upgrade', (...args) => server.emit('upgrade', ...args));
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen({ host: l.host, port: l.port, ipv6Only: l.host.includes(':') }, () => resolve());
    });
    servers.push(s);
    const p = (s.address() as net.AddressInfo).port;
    origins.push(`http://${l.host.includes(':') ? `[${l.host}]` : l.host}:${p}`);
  }
  return {
    origins,
    seen,
    close: async () => {
      await Promise.all(servers.map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
    },
  };
}
