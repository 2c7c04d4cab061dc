// The resolver against a real DNS server (test/security/lib/dns-server.ts) on 127.0.0.1: A+AAAA,
// every answer returned, fail closed on SERVFAIL and timeouts, and the short cache. Only loopback
// sockets are opened; answers are data, never dialled here.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createDnsResolver, cachingResolver, ResolveError } from './resolver.ts';
import { startDnsServer } from '../../test/security/lib/dns-server.ts';

const dns = await startDnsServer((name, type, n) => {
  switch (name) {
    case 'both.example':
      return type === 'A' ? { addresses: ['93.184.216.34', '10.0.0.1'] } : { addresses: ['2606:2800:220:1::1'] };
    case 'v4only.example':
      return type === 'A' ? { addresses: ['93.184.216.34'], ttl: 5 } : { addresses: [] };
    case 'v6only.example':
      return type === 'AAAA' ? { addresses: ['fd00::1'] } : { addresses: [] };
    case 'nx.example':
      return 'nxdomain';
    case 'servfail.example':
      return 'servfail';
    case 'aaaa-servfail.example':
      return type === 'A' ? { addresses: ['93.184.216.34'] } : 'servfail';
    case 'slow.example':
      return type === 'A' ? { addresses: ['93.184.216.34'] } : 'drop';
    case 'rebind.example':
      return type === 'A' ? { addresses: [n === 1 ? '93.184.216.34' : '127.0.0.1'], ttl: 0 } : { addresses: [] };
    case 'ttl.example':
      return type === 'A' ? { addresses: [`93.184.216.${n}`], ttl: 1 } : { addresses: [] };
    default:
      return 'nxdomain';
  }
});
after(() => dns.close());
const r = createDnsResolver({ servers: [dns.server], timeoutMs: 300, tries: 1 });

test('A and AAAA answers are all returned', async () => {
  const res = await r.resolve('both.example');
  assert.deepEqual(res.addresses.sort(), ['10.0.0.1', '2606:2800:220:1::1', '93.184.216.34']);
  assert.deepEqual((await r.resolve('v4only.example')).addresses, ['93.184.216.34']);
  assert.equal((await r.resolve('v4only.example')).ttl, 5);
  assert.deepEqual((await r.resolve('v6only.example')).addresses, ['fd00::1']);
});

test('NXDOMAIN is notfound; SERVFAIL and timeouts, on either family, are failures (fail closed)', async () => {
  await assert.rejects(r.resolve('nx.example'), (e: unknown) => e instanceof ResolveError && e.kind === 'notfound');
  for (const name of ['servfail.example', 'aaaa-servfail.example', 'slow.example']) {
    await assert.rejects(r.resolve(name), (e: unknown) => e instanceof ResolveError && e.kind === 'failure', name);
  }
});

test('an unreachable DNS server is a failure, not an empty answer', async () => {
  const dead = createDnsResolver({ servers: ['127.0.0.1:9'], timeoutMs: 200, tries: 1 });
  await assert.rejects(dead.resolve('both.example'), ResolveError);
});

test('the cache honours TTL 0 (rebinding names are asked again) and caps long TTLs', async () => {
  const c = cachingResolver(r, { maxTtlSeconds: 30 });
  assert.deepEqual((await c.resolve('rebind.example')).addresses, ['93.184.216.34']);
  assert.deepEqual((await c.resolve('rebind.example')).addresses, ['127.0.0.1']);
  let t = 1000;
  const c2 = cachingResolver(r, { maxTtlSeconds: 30, now: () => t });
  assert.deepEqual((await c2.resolve('ttl.example')).addresses, ['93.184.216.1']);
  assert.deepEqual((await c2.resolve('ttl.example')).addresses, ['93.184.216.1']);
  t += 1001;
  assert.deepEqual((await c2.resolve('ttl.example')).addresses, ['93.184.216.2']);
});

test('the cache coalesces concurrent lookups and does not cache failures', async () => {
  let calls = 0;
  const inner = {
    resolve: async (n: string) => {
      calls++;
      if (n === 'bad') throw new ResolveError('failure', 'x');
      return { addresses: ['93.184.216.34'], ttl: 60 };
    },
  };
  const c = cachingResolver(inner);
  await Promise.all([c.resolve('a.example'), c.resolve('a.example'), c.resolve('a.example')]);
  assert.equal(calls, 1);
  await assert.rejects(c.resolve('bad'));
  await assert.rejects(c.resolve('bad'));
  assert.equal(calls, 3);
});

test('the cache remembers "no such name" for its window, and only that', async () => {
  let calls = 0;
  let t = 1000;
  const inner = {
    resolve: async (n: string) => {
      calls++;
      if (n === 'gone.example') throw new ResolveError('notfound', 'gone.example does not resolve');
      throw new ResolveError('failure', 'timeout');
    },
  };
  const c = cachingResolver(inner, { notFoundSeconds: 10, now: () => t });
  for (let i = 0; i < 3; i++) await assert.rejects(c.resolve('gone.example'), (e: unknown) => e instanceof ResolveError && e.kind === 'notfound');
  assert.equal(calls, 1);
  t += 10_001;
  await assert.rejects(c.resolve('gone.example'), (e: unknown) => e instanceof ResolveError && e.kind === 'notfound');
  assert.equal(calls, 2);
  await assert.rejects(c.resolve('flaky.example'), (e: unknown) => e instanceof ResolveError && e.kind === 'failure');
  await assert.rejects(c.resolve('flaky.example'));
  assert.equal(calls, 4);
  // A real NXDOMAIN through the DNS resolver is cached the same way.
  const real = cachingResolver(r);
  await assert.rejects(real.resolve('nx.example'), (e: unknown) => e instanceof ResolveError && e.kind === 'notfound');
  await assert.rejects(real.resolve('nx.example'), (e: unknown) => e instanceof ResolveError && e.kind === 'notfound');
});
