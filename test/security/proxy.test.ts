// The egress proxy with raw clients, against non-loopback targets (so: inside its own network
// namespace, run-in-netns.sh). What Chromium cannot easily be made to send is sent here directly:
// every internal address over CONNECT and absolute-URI HTTP, mixed answers, mapped IPv6, and
// DNS rebinding at the proxy itself (answers alternating between public and internal on every
// query: the proxy must dial exactly the answer it classified).
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startEgressGuard, type EgressGuard } from '../../server/egress/index.ts';
import { buildWorld, INTERNAL, PUBLIC_V4, PUBLIC_V6, type World } from './lib/world.ts';
import { startDnsServer, type TestDnsServer } from './lib/dns-server.ts';

let world: World;
let guard: EgressGuard;
let dns: TestDnsServer;
const logged: string[] = [];

before(async () => {
  world = await buildWorld();
  dns = await startDnsServer((name, type, n) => {
    if (name === 'flip.example.com') return { addresses: type === 'A' ? [n % 2 ? PUBLIC_V4 : INTERNAL.private10] : [], ttl: 0 };
    if (name === 'flip6.example.com') return { addresses: type === 'AAAA' ? [n % 2 ? PUBLIC_V6 : INTERNAL.awsMetadataV6] : [], ttl: 0 };
    if (name === 'site.example.com') return { addresses: type === 'A' ? [PUBLIC_V4] : [PUBLIC_V6] };
    if (name === 'mixed.example.com') return { addresses: type === 'A' ? [PUBLIC_V4, INTERNAL.metadata] : [] };
    return 'nxdomain';
  });
  guard = await startEgressGuard({ allow: [], dnsServers: [dns.server], log: (_l, msg, f) => logged.push(JSON.stringify({ msg, ...f })) });
});
after(async () => {
  await guard?.close();
  await dns?.close();
  await world?.close();
});
afterEach(() => assert.deepEqual(world.hits(), [], 'a canary was reached'));

function raw(payload: string, until = /\r\n\r\n/): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(guard.proxyPort, '127.0.0.1', () => s.write(payload));
    let buf = '';
    const done = () => {
      s.destroy();
      resolve(buf);
    };
    s.on('data', (d) => {
      buf += d.toString('latin1');
      if (until.test(buf)) done();
    });
    s.on('close', done);
    s.on('error', reject);
    s.setTimeout(5000, done);
  });
}
const origin = (h: string, p: number) => `${h.includes(':') ? `[${h}]` : h}:${p}`;

test('every internal address is refused over CONNECT and absolute-URI HTTP, in IPv4 and IPv6 spellings', async () => {
  const spellings = (h: string) => (h.includes(':') ? [h] : [h, `[::ffff:${h}]`, String(h.split('.').reduce((a, o) => a * 256 + Number(o), 0))]);
  for (const host of Object.values(INTERNAL)) {
    for (const spelled of spellings(host)) {
      for (const port of [80, 443]) {
        const t = spelled.startsWith('[') || !spelled.includes(':') ? `${spelled}:${port}` : origin(spelled, port);
        assert.match(await raw(`CONNECT ${t} HTTP/1.1\r\nHost: ${t}\r\n\r\n`), /^HTTP\/1\.1 403/, `CONNECT ${t}`);
        assert.match(await raw(`GET http://${t}/latest/meta-data/?token=s3cr3t HTTP/1.1\r\nHost: ${t}\r\n\r\n`), /^HTTP\/1\.1 403/, `GET ${t}`);
      }
    }
  }
});

test('a public address is reached over CONNECT, IPv4, IPv6 and IPv4-mapped (dialled as IPv4)', async () => {
  for (const t of [`${PUBLIC_V4}:80`, `[${PUBLIC_V6}]:80`, `[::ffff:${PUBLIC_V4}]:80`, 'site.example.com:80']) {
    const r = await raw(`CONNECT ${t} HTTP/1.1\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, /public page/);
    assert.match(r, /^HTTP\/1\.1 200 Connection Established/, t);
    assert.match(r, /public page/, t);
  }
});

test('a name with one internal answer among public ones is refused', async () => {
  assert.match(await raw('CONNECT mixed.example.com:80 HTTP/1.1\r\n\r\n'), /^HTTP\/1\.1 403/);
  assert.match(await raw('GET http://mixed.example.com/ HTTP/1.1\r\nHost: mixed.example.com\r\n\r\n'), /^HTTP\/1\.1 403/);
});

test('DNS rebinding at the proxy: answers flipping on every query never lead to an internal dial', async () => {
  let reached = 0;
  let refused = 0;
  for (let i = 0; i < 12; i++) {
    for (const name of ['flip.example.com', 'flip6.example.com']) {
      const r = await raw(`CONNECT ${name}:80 HTTP/1.1\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, /public page|^HTTP\/1\.1 403/);
      if (/public page/.test(r)) reached++;
      else refused++;
    }
  }
  assert.ok(reached > 0 && refused > 0, `both outcomes seen (reached ${reached}, refused ${refused})`);
});

test('refusal logs name kind, origin and reason, never a path, query or header', () => {
  assert.ok(logged.length > 0);
  for (const l of logged) assert.ok(!/meta-data|s3cr3t|token|\/ok/.test(l), l);
  assert.ok(logged.some((l) => l.includes('"origin":"169.254.169.254:80"') && l.includes('link-local')));
});
