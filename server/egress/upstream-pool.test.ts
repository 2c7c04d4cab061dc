// The proxy's kept-alive upstream connections (upstream-pool.ts), over loopback: a connection is
// reused only for a request whose verdict has exactly the addresses it was dialled from and that
// came on the same connection of the browser (never across two: two captures share nothing), and a
// reused connection the server closed under a request is replaced by a fresh one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { startProxy, type EgressProxy } from './proxy.ts';
import { createPolicy } from './policy.ts';
import { ResolveError, type HostResolver } from './resolver.ts';

let origin: http.Server;
let port = 0;
/** Each upstream connection as the origin saw it: the address it was reached at, and requests on it. */
const connections: { local: string; requests: number }[] = [];
/** Requests on a reused connection the origin drops unanswered (as a server closing an idle connection would). */
let dropReused = false;
let proxy: EgressProxy;
const zone: Record<string, string[]> = {};

before(async () => {
  origin = http.createServer((req, res) => {
    const c = (req.socket as net.Socket & { seen?: { local: string; requests: number } }).seen!;
    c.requests++;
    if (dropReused && c.requests > 1) return void req.socket.destroy();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`origin ${req.url}`);
  });
  origin.on('connection', (s: net.Socket & { seen?: { local: string; requests: number } }) => {
    s.seen = { local: s.localAddress ?? '', requests: 0 };
    connections.push(s.seen);
  });
  await new Promise<void>((r) => origin.listen(0, '0.0.0.0', r));
  port = (origin.address() as net.AddressInfo).port;
  const resolver: HostResolver = {
    async resolve(n) {
      if (zone[n]) return { addresses: zone[n]!, ttl: 0 };
      throw new ResolveError('notfound', `${n} does not resolve`);
    },
  };
  proxy = await startProxy({ policy: createPolicy({ allow: [`pool.example:${port}`], resolver }) });
});
after(async () => {
  one.destroy();
  await proxy.close();
  origin.closeAllConnections();
  await new Promise((r) => origin.close(r));
});

/** One connection of a browser to the proxy, kept alive: its GETs go one after another on it. */
function browserConnection(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: 1 });
}
const one = browserConnection();

/** One GET through the proxy, on the given connection of the browser. */
function get(path: string, agent: http.Agent = one): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      { host: '127.0.0.1', port: proxy.port, path: `http://pool.example:${port}${path}`, headers: { host: `pool.example:${port}` }, agent },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    r.on('error', reject);
    r.end();
  });
}

test('requests decided alike share one upstream connection; a different answer gets its own', async () => {
  connections.length = 0;
  zone['pool.example'] = ['127.0.0.1'];
  const allowed = proxy.stats().allowed;
  for (const p of ['/a', '/b', '/c']) assert.deepEqual(await get(p), { status: 200, body: `origin ${p}` });
  assert.deepEqual(connections, [{ local: '127.0.0.1', requests: 3 }]);
  assert.equal(proxy.stats().allowed - allowed, 3);
  // the name resolves elsewhere now: the kept connection (to 127.0.0.1) is not used for it
  zone['pool.example'] = ['127.0.0.2'];
  assert.deepEqual(await get('/d'), { status: 200, body: 'origin /d' });
  assert.deepEqual(connections, [
    { local: '127.0.0.1', requests: 3 },
    { local: '127.0.0.2', requests: 1 },
  ]);
});

test('a kept connection the server drops under a GET is replaced: the GET is answered', async () => {
  connections.length = 0;
  zone['pool.example'] = ['127.0.0.3'];
  dropReused = true;
  try {
    assert.deepEqual(await get('/first'), { status: 200, body: 'origin /first' });
    assert.deepEqual(await get('/second'), { status: 200, body: 'origin /second' });
    // the second GET went on the kept connection, was dropped there, and was sent again on a new one
    assert.deepEqual(connections, [
      { local: '127.0.0.3', requests: 2 },
      { local: '127.0.0.3', requests: 1 },
    ]);
  } finally {
    dropReused = false;
  }
});

test("two connections of the browser (two captures' contexts) never share an upstream connection", async () => {
  connections.length = 0;
  zone['pool.example'] = ['127.0.0.4'];
  const other = browserConnection();
  try {
    assert.equal((await get('/mine')).status, 200);
    assert.equal((await get('/theirs', other)).status, 200);
    assert.equal((await get('/mine-again')).status, 200);
    assert.equal((await get('/theirs-again', other)).status, 200);
    // one upstream connection each, each reused by its own browser connection only
    assert.deepEqual(connections, [
      { local: '127.0.0.4', requests: 2 },
      { local: '127.0.0.4', requests: 2 },
    ]);
  } finally {
    other.destroy();
  }
});
