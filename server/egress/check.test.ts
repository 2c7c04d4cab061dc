// The pre-navigation check end to end, minus the network: WHATWG spellings, schemes, userinfo, name
// rules, resolution answers (private, mixed, failing) and the EGRESS_ALLOW allowlist. The resolver
// is an in-memory map: nothing here opens a socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkUrl } from './check.ts';
import { createPolicy, canonicalAllowEntry } from './policy.ts';
import { parseAuthority, parseTargetUrl } from './host.ts';
import { ResolveError, type HostResolver } from './resolver.ts';
import { TargetBlocked, NavigationFailed } from '../errors.ts';

const zone: Record<string, string[] | 'nxdomain' | 'servfail'> = {
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'private.example': ['10.0.0.5'],
  'mixed.example': ['93.184.216.34', '127.0.0.1'],
  'mixed6.example': ['93.184.216.34', 'fd00::1'],
  'mapped.example': ['::ffff:169.254.169.254'],
  'metadata-alias.example': ['169.254.169.254'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  '10-0-0-1.sslip.io': ['10.0.0.1'],
  'nx.example': 'nxdomain',
  'broken.example': 'servfail',
  'fixture.example': ['127.0.0.1'],
};
const lookups: string[] = [];
const resolver: HostResolver = {
  async resolve(name) {
    lookups.push(name);
    const z = zone[name];
    if (z === undefined || z === 'nxdomain') throw new ResolveError('notfound', `${name} does not resolve`);
    if (z === 'servfail') throw new ResolveError('failure', `DNS lookup of ${name} failed (ESERVFAIL)`);
    return { addresses: z, ttl: 60 };
  },
};
const policy = createPolicy({ allow: ['127.0.0.1:8123', 'fixture.example:80', '[::1]:8124'], resolver });
const blocked = (url: string, re?: RegExp) =>
  assert.rejects(
    checkUrl(policy, url),
    (e: unknown) => {
      assert.ok(e instanceof TargetBlocked, `${url}: expected TargetBlocked, got ${e}`);
      assert.equal((e as TargetBlocked).status, 400);
      if (re) assert.match((e as Error).message, re);
      return true;
    },
    url,
  );
const unreachable = (url: string) => assert.rejects(checkUrl(policy, url), NavigationFailed, url);

test('IPv4 spellings of loopback and metadata are all blocked after WHATWG parsing', async () => {
  for (const u of [
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://127.0.0.1./',
    'http://0x7f.0.0.1/',
    'http://0/',
    'http://0.0.0.0/',
    'http://017700000001/',
    'http://127.000.000.001/',
    'http://%31%32%37.0.0.1/',
    'http://１２７．０．０．１/',
    'http://127。0。0。1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/',
    'http://0xa9fea9fe/',
    'http://0251.0376.0251.0376/',
    'http://169.254.43518/',
    'http://100.100.100.200/',
  ]) {
    await blocked(u, /is blocked/);
  }
});

test('IPv6 forms are blocked: expanded, mapped, embedded, compatible, link-local, ULA', async () => {
  for (const u of [
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:169.254.169.254]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::]/',
    'http://[fe80::1]/',
    'http://[fd00:ec2::254]/',
    'http://[fc00::1]:8080/',
    'http://[ff02::1]/',
    'http://[2001:db8::1]/',
  ]) {
    await blocked(u);
  }
});

test('schemes other than http and https are blocked, in any case', async () => {
  for (const u of [
    'file:///etc/passwd',
    'FILE:///etc/passwd',
    'fIlE://localhost/etc/passwd',
    'data:text/html,hi',
    'javascript:alert(1)',
    'blob:http://a.example/x',
    'view-source:http://public.example/',
    'view-source:file:///etc/passwd',
    'chrome://version',
    'devtools://devtools/bundled/inspector.html',
    'ftp://public.example/',
    'ws://public.example/',
    'wss://public.example/',
    'about:blank',
    'gopher://127.0.0.1:6379/_INFO',
  ]) {
    await blocked(u, /scheme|absolute/);
  }
  for (const u of ['//public.example/', '/relative', 'public.example', '', 'http//public.example']) await blocked(u, /absolute/);
});

test('userinfo tricks are blocked; backslashes and scheme case normalise to the real host', async () => {
  await blocked('http://a@127.0.0.1/', /userinfo/);
  await blocked('http://public.example@127.0.0.1/', /userinfo/);
  await blocked('http://user:pw@public.example/', /userinfo/);
  await blocked('http:\\\\127.0.0.1\\x', /127\.0\.0\.1/);
  await blocked('HTTP://127.0.0.1/', /127\.0\.0\.1/);
  await blocked('http://127.0.0.1\\@public.example/', /127\.0\.0\.1/); // backslash ends the authority
  await blocked('http://public.example#@127.0.0.1/'.replace('public.example#@', '127.0.0.1#@'));
  assert.equal(await checkUrl(policy, 'HTTP://PUBLIC.EXAMPLE:80/a/../b?q#f'), 'http://public.example/b?q#f');
  assert.equal(await checkUrl(policy, 'http:\\\\public.example\\x'), 'http://public.example/x');
});

test('names that mean loopback or internal without DNS are blocked before any lookup', async () => {
  lookups.length = 0;
  for (const u of [
    'http://localhost/',
    'http://LOCALHOST./',
    'http://a.b.localhost/',
    'http://localhost.:8080/',
    'http://metadata/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://metadata.goog/',
    'http://instance-data/',
    'http://instance-data.ec2.internal/',
    'http://intranet/',
    'http://printer.local/',
    'http://kubernetes.default.svc/',
    'http://router.home.arpa/',
    'http://x.corp/',
    'http://metadata.tencentyun.com/',
  ]) {
    await blocked(u, /loopback name|single-label|internal-only|metadata host/);
  }
  assert.deepEqual(lookups, []);
});

test('IDNA and full-width spellings of names reach the same rules', async () => {
  await blocked('http://ｌｏｃａｌｈｏｓｔ/', /loopback name/);
  await blocked('http://LocalHost%2E/', /loopback name/);
  await blocked('http://metadata.google.internal./', /internal-only/);
});

test('names resolving to non-public addresses are blocked; one bad answer in a mixed set is enough', async () => {
  await blocked('http://private.example/', /private.example resolves to 10\.0\.0\.5/);
  await blocked('http://mixed.example/', /127\.0\.0\.1/);
  await blocked('https://mixed6.example/', /fd00::1/);
  await blocked('http://mapped.example/', /IPv4-mapped link-local/);
  await blocked('http://metadata-alias.example/', /169\.254\.169\.254/);
  await blocked('http://127.0.0.1.nip.io/', /loopback/);
  await blocked('http://10-0-0-1.sslip.io/', /private/);
});

test('resolver failure fails closed (502, no navigation); NXDOMAIN is 502', async () => {
  await unreachable('http://nx.example/');
  await unreachable('http://broken.example/');
});

test('public names and literals pass and return the normalised href', async () => {
  assert.equal(await checkUrl(policy, 'http://public.example'), 'http://public.example/');
  assert.equal(await checkUrl(policy, 'https://93.184.216.34:8443/x'), 'https://93.184.216.34:8443/x');
  assert.equal(await checkUrl(policy, 'http://[2606:4700:4700::1111]/'), 'http://[2606:4700:4700::1111]/');
  assert.equal(await checkUrl(policy, 'http://[::ffff:8.8.8.8]/'), 'http://[::ffff:808:808]/');
});

test('EGRESS_ALLOW: exact host:port only', async () => {
  await checkUrl(policy, 'http://127.0.0.1:8123/');
  await checkUrl(policy, 'http://[::1]:8124/');
  await checkUrl(policy, 'http://fixture.example/');
  await blocked('http://127.0.0.1:8124/');
  await blocked('http://127.0.0.2:8123/');
  await blocked('http://localhost:8123/', /loopback name/);
  await blocked('https://fixture.example/', /resolves to 127\.0\.0\.1/); // port 443 is not 80
  await blocked('http://2130706433:8124/');
  await checkUrl(policy, 'http://2130706433:8123/'); // the same origin, spelled otherwise
  const v = await policy.check(parseAuthority('127.0.0.1:8123', 0));
  assert.ok(v.ok && v.allowlisted && v.dial[0] === '127.0.0.1');
});

test('allow entries are canonicalised and must carry a port', () => {
  assert.equal(canonicalAllowEntry('LOCALHOST:8080'), 'localhost:8080');
  assert.equal(canonicalAllowEntry('[0:0::1]:80'), '[::1]:80');
  assert.equal(canonicalAllowEntry('fixture.example.:80'), 'fixture.example:80');
  assert.throws(() => canonicalAllowEntry('127.0.0.1'));
});

test('proxy authorities parse like URLs (CONNECT spellings)', () => {
  assert.deepEqual(parseAuthority('0x7f.1:443', 0), { host: '127.0.0.1', port: 443, isIp: true, origin: '127.0.0.1:443' });
  assert.deepEqual(parseAuthority('[::ffff:127.0.0.1]:443', 0), { host: '::ffff:7f00:1', port: 443, isIp: true, origin: '[::ffff:7f00:1]:443' });
  assert.equal(parseAuthority('Public.Example.:80', 0).origin, 'public.example:80');
  for (const bad of ['a@127.0.0.1:80', '127.0.0.1:80/x', 'a b:80', '127.0.0.1:99999', '[::1:80']) assert.throws(() => parseAuthority(bad, 0), bad);
});

test('parseTargetUrl keeps default ports explicit in the origin', () => {
  assert.equal(parseTargetUrl('https://public.example/').target.origin, 'public.example:443');
  assert.equal(parseTargetUrl('http://public.example:8080/').target.origin, 'public.example:8080');
});
