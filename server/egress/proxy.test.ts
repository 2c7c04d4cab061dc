// The filtering proxy over loopback only (safe outside a network namespace: every target here is
// 127.0.0.1 or ::1, so even a broken proxy cannot send traffic off the machine). The allowlisted
// fixture must work through every proxy path; canaries on loopback must see zero connections.
// Non-loopback targets are exercised in test/security/ inside a namespace.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import crypto from 'node:crypto';
import { startProxy, type EgressProxy } from './proxy.ts';
import { createPolicy } from './policy.ts';
import { ResolveError, type HostResolver } from './resolver.ts';
import { tcpCanary, type Canary } from '../../test/security/lib/canary.ts';
import { acceptWebSocket, startFixture, webSocketAccept, type Fixture } from '../../test/support/fixture.ts';

let fixture: Fixture;
let fport = 0;
let canary: Canary, canary6: Canary;
let proxy: EgressProxy;

before(async () => {
  canary = await tcpCanary('127.0.0.1');
  canary6 = await tcpCanary('::1');
  fixture = await startFixture();
  fixture.route('/', (req, res) => {
    res.writeHead(200, {
      'content-type': 'text/plain',
      'x-seen-host': req.headers.host ?? '',
      'x-seen-proxy-auth': String(req.headers['proxy-authorization'] ?? ''),
    });
    res.end(`fixture ${req.method} ${req.url}`);
  });
  fixture.onUpgrade(acceptWebSocket);
  fport = fixture.port;
  const zone: Record<string, string[]> = { 'loop.example': ['127.0.0.1'], 'loop6.example': ['::1'], 'fixture.example': ['127.0.0.1'] };
  const resolver: HostResolver = {
    async resolve(n) {
      if (zone[n]) return { addresses: zone[n]!, ttl: 0 };
      throw new ResolveError('notfound', `${n} does not resolve`);
    },
  };
  proxy = await startProxy({ policy: createPolicy({ allow: [`127.0.0.1:${fport}`, `fixture.example:${fport}`], resolver }) });
});
after(async () => {
  await proxy.close();
  await fixture.close();
  await canary.close();
  await canary6.close();
});

/** Sends raw bytes to the proxy and collects the reply until the proxy closes or `until` matches. */
function raw(payload: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(proxy.port, '127.0.0.1', () => s.write(payload));
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('latin1');
      if (until?.test(buf)) {
        s.destroy();
        resolve(buf);
      }
    });
    s.on('end', () => resolve(buf));
    s.on('close', () => resolve(buf));
    s.on('error', reject);
    s.setTimeout(5000, () => {
      s.destroy();
      reject(new Error(`timeout, got ${JSON.stringify(buf)}`));
    });
  });
}

const loopbackTargets = () => [
  `127.0.0.1:${canary.port}`,
  `127.1:${canary.port}`,
  `2130706433:${canary.port}`,
  `0x7f000001:${canary.port}`,
  `localhost:${canary.port}`,
  `localhost.:${canary.port}`,
  `a.localhost:${canary.port}`,
  `loop.example:${canary.port}`,
  `[::1]:${canary6.port}`,
  `[::ffff:127.0.0.1]:${canary.port}`,
  `loop6.example:${canary6.port}`,
  `0.0.0.0:${canary.port}`,
  `LOOP.EXAMPLE.:${canary.port}`,
];

test('absolute-URI HTTP to the allowlisted fixture is forwarded, with hop-by-hop headers dropped', async () => {
  const r = await raw(
    `GET http://127.0.0.1:${fport}/a?b HTTP/1.1\r\nHost: 127.0.0.1:${fport}\r\nProxy-Authorization: Basic eA==\r\nProxy-Connection: keep-alive\r\nConnection: close\r\n\r\n`,
  );
  assert.match(r, /^HTTP\/1\.1 200/);
  assert.match(r, /fixture GET \/a\?b/);
  assert.match(r, new RegExp(`x-seen-host: 127\\.0\\.0\\.1:${fport}`, 'i'));
  assert.match(r, /x-seen-proxy-auth: \r\n/i);
});

test('absolute-URI HTTP to loopback in any spelling gets an empty 403 and never connects', async () => {
  const before = proxy.stats().refused;
  for (const t of loopbackTargets()) {
    const r = await raw(`GET http://${t}/secret HTTP/1.1\r\nHost: ${t}\r\nConnection: close\r\n\r\n`);
    assert.match(r, /^HTTP\/1\.1 403/, t);
    assert.match(r, /x-egress-blocked: 1/i, t);
    assert.match(r, /content-length: 0/i, t);
  }
  assert.equal(proxy.stats().refused - before, loopbackTargets().length);
  assert.deepEqual([...canary.hits, ...canary6.hits], []);
});

test('CONNECT to the fixture tunnels; CONNECT to loopback in any spelling is refused', async () => {
  const ok = await raw(
    `CONNECT 127.0.0.1:${fport} HTTP/1.1\r\nHost: 127.0.0.1:${fport}\r\n\r\nGET /tunnelled HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    /fixture GET \/tunnelled/,
  );
  assert.match(ok, /^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200/);
  for (const t of loopbackTargets()) {
    const r = await raw(`CONNECT ${t} HTTP/1.1\r\nHost: ${t}\r\n\r\n`);
    assert.match(r, /^HTTP\/1\.1 403/, t);
  }
  assert.deepEqual([...canary.hits, ...canary6.hits], []);
});

test('an allowlisted name resolves through the resolver; the same name on another port is classified', async () => {
  const r = await raw(`GET http://fixture.example:${fport}/n HTTP/1.1\r\nHost: fixture.example:${fport}\r\nConnection: close\r\n\r\n`);
  assert.match(r, /fixture GET \/n/);
  const b = await raw(`CONNECT fixture.example:${canary.port} HTTP/1.1\r\n\r\n`);
  assert.match(b, /^HTTP\/1\.1 403/);
});

test('absolute-URI Upgrade (WebSocket without CONNECT) follows the same rules', async () => {
  const key = crypto.randomBytes(16).toString('base64');
  const hs = (t: string) =>
    `GET http://${t}/ws HTTP/1.1\r\nHost: ${t}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`;
  const ok = await raw(hs(`127.0.0.1:${fport}`), /\r\n\r\n/);
  assert.match(ok, /^HTTP\/1\.1 101/);
  assert.ok(ok.includes(webSocketAccept(key)));
  const r = await raw(hs(`127.0.0.1:${canary.port}`));
  assert.match(r, /^HTTP\/1\.1 403/);
  assert.deepEqual(canary.hits, []);
});

test('malformed and non-proxy requests are refused', async () => {
  for (const req of [
    'GET / HTTP/1.1\r\nHost: x\r\n\r\n', // origin-form: not a proxy request
    `GET https://127.0.0.1:${fport}/ HTTP/1.1\r\nHost: x\r\n\r\n`, // https must use CONNECT
    `GET ftp://127.0.0.1:${fport}/ HTTP/1.1\r\nHost: x\r\n\r\n`,
    `GET http://u:p@127.0.0.1:${fport}/ HTTP/1.1\r\nHost: x\r\n\r\n`, // userinfo
  ]) {
    assert.match(await raw(req), /^HTTP\/1\.1 400/, req);
  }
  for (const req of [`CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n`, `CONNECT u@127.0.0.1:${fport} HTTP/1.1\r\n\r\n`, `CONNECT 127.0.0.1:${fport}/x HTTP/1.1\r\n\r\n`]) {
    assert.match(await raw(req), /^HTTP\/1\.1 400/, req);
  }
});

test('a checked target that refuses the connection is a 502, not a retry elsewhere', async () => {
  const closed = await tcpCanary('127.0.0.1');
  await closed.close();
  const p2 = await startProxy({
    policy: createPolicy({ allow: [`127.0.0.1:${closed.port}`], resolver: { resolve: async () => ({ addresses: [], ttl: 0 }) } }),
  });
  try {
    const r = await new Promise<string>((resolve) => {
      const s = net.connect(p2.port, '127.0.0.1', () => s.write(`CONNECT 127.0.0.1:${closed.port} HTTP/1.1\r\n\r\n`));
      let b = '';
      s.on('data', (d) => (b += d));
      s.on('close', () => resolve(b));
    });
    assert.match(r, /^HTTP\/1\.1 502/);
    assert.equal(p2.stats().failed, 1);
  } finally {
    await p2.close();
  }
});
