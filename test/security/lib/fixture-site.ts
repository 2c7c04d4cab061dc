// The battery's "public" web site: an HTTP server on public-looking addresses that exist only on
// `lo` inside the test's network namespace (and, for secure-context features such as service
// workers, on an EGRESS_ALLOW-listed 127.0.0.1 origin). It serves the attack pages, redirects, and
// the isolation probes, and records what it was asked (paths and cookies) so tests can observe
// browser state from outside the image.
import type http from 'node:http';
import { acceptWebSocket, startFixture, type Fixture } from '../../support/fixture.ts';
import { NAVIGATION_KINDS, SUBRESOURCE_KINDS, page, udpProbe, type NavigationKind, type SubresourceKind } from './attacks.ts';

const swScript = (to: string) => `
self.addEventListener('install', (e) => { self.skipWaiting(); e.waitUntil(fetch(${JSON.stringify(to)}).catch(() => {})); });
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => { if (e.request.url.includes('/through-sw')) e.respondWith(fetch(${JSON.stringify(to)}).catch(() => new Response('blocked'))); });
`;

/** Sets every kind of state (spec: nothing crosses requests), then reports what it finds next time. */
const isolationPage = (report: string) =>
  page(
    `
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
</script>`,
    'isolation',
  );

/** The site on the one fixture server of the tests (test/support/fixture.ts), on `listen`. */
export async function startFixtureSite(listen: Array<{ host: string; port: number }>): Promise<Fixture> {
  const fx = await startFixture({ listen });
  const html = (res: http.ServerResponse, body: string, headers: Record<string, string> = {}) =>
    void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(body);
  const to = (url: URL) => url.searchParams.get('to') ?? '';
  fx.route('/redirect/', (_req, res, url) => void res.writeHead(Number(url.pathname.split('/')[2]), { location: to(url), 'content-length': '0' }).end());
  fx.route('/attack/', (_req, res, url) => {
    const [, , kind, name] = url.pathname.split('/');
    if (kind === 'sub') return html(res, page(SUBRESOURCE_KINDS[name as SubresourceKind](to(url)), `sub ${name}`));
    if (kind === 'nav') return html(res, page(NAVIGATION_KINDS[name as NavigationKind](to(url)), `nav ${name}`));
    if (kind === 'udp') return html(res, page(udpProbe(to(url)), 'udp'));
    res.writeHead(404, { 'content-length': '0' }).end();
  });
  fx.route('/sw-page', (_req, res, url) =>
    html(
      res,
      page(
        `<script>navigator.serviceWorker.register('/sw.js?to=${encodeURIComponent(to(url))}').then(() => navigator.serviceWorker.ready).then(() => fetch('/through-sw')).catch(() => {})</script>`,
        'service worker',
      ),
    ),
  );
  fx.route('/sw.js', (_req, res, url) => void res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(swScript(to(url))));
  fx.route('/isolation', (_req, res) => html(res, isolationPage('/report'), { 'set-cookie': 'fromheader=1; Max-Age=3600; Path=/' }));
  fx.route(
    '/cached.js',
    (_req, res) => void res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=3600' }).end('window.cachedLoaded = 1;'),
  );
  fx.route('/report', (_req, res) => void res.writeHead(204).end());
  fx.route('/ok', (_req, res) => html(res, page('<p>public page</p>', 'ok')));
  fx.onUpgrade(acceptWebSocket);
  return fx;
}
