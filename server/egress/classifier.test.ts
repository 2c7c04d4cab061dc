// One test per row of the classifier table (threat model "Address classification"), at the row's
// first and last address; the threat model's list is restated here independently of the table, so
// dropping a row from classifier.ts fails a test; plus the public neighbours of every IPv4 row and
// addresses that library classifiers get wrong. Pure computation: no I/O.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IPV4_DENY, IPV6_DENY, classifyIp, classifyBytes } from './classifier.ts';
import { formatIp, parseCidr, parseIPv4, parseIPv6, type Cidr, type IpBytes } from './ip.ts';

/** First and last address of a CIDR. */
function cidrBounds(c: Cidr): [IpBytes, IpBytes] {
  const first = new Uint8Array(c.bytes.length);
  const last = new Uint8Array(c.bytes.length);
  for (let i = 0; i < c.bytes.length; i++) {
    const bits = Math.max(0, Math.min(8, c.prefix - i * 8));
    const mask = bits === 0 ? 0 : (0xff << (8 - bits)) & 0xff;
    first[i] = c.bytes[i]! & mask;
    last[i] = (c.bytes[i]! & mask) | (~mask & 0xff);
  }
  return [first, last];
}

const denied = (ip: string) => {
  const c = classifyIp(ip);
  assert.equal(c.allowed, false, `${ip} must be denied`);
  return c as Extract<typeof c, { allowed: false }>;
};
const allowed = (ip: string) => {
  const c = classifyIp(ip);
  assert.equal(c.allowed, true, `${ip} must be allowed (${'reason' in c ? c.reason : ''})`);
  return c as Extract<typeof c, { allowed: true }>;
};

for (const row of [...IPV4_DENY, ...IPV6_DENY]) {
  test(`row ${row.cidr} (${row.label}) is denied at both ends`, () => {
    const [first, last] = cidrBounds(parseCidr(row.cidr));
    for (const b of [first, last]) {
      const c = classifyBytes(b);
      assert.equal(c.allowed, false, `${formatIp(b)} in ${row.cidr} must be denied`);
    }
    // The reason names this row unless a more specific row covers the address.
    const c = classifyBytes(first);
    assert.ok(!c.allowed && c.row !== undefined && parseCidr(c.row).prefix >= parseCidr(row.cidr).prefix);
  });
}

// The threat model's list, restated: every entry must be a row of the table.
const THREAT_MODEL_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '255.255.255.255/32',
];
const THREAT_MODEL_V6 = [
  '::/128',
  '::1/128',
  '::/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '2002::/16',
  '2001::/32',
  '2001:db8::/32',
  '100::/64',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];
test('every threat-model range is a row of the table', () => {
  const rows = new Set([...IPV4_DENY, ...IPV6_DENY].map((r) => r.cidr));
  for (const c of [...THREAT_MODEL_V4, ...THREAT_MODEL_V6]) assert.ok(rows.has(c), `missing row ${c}`);
});

test('IPv4 neighbours just outside each row are public unless another row covers them', () => {
  const rows = IPV4_DENY.map((r) => parseCidr(r.cidr));
  const toInt = (b: Uint8Array) => ((b[0]! << 24) >>> 0) + (b[1]! << 16) + (b[2]! << 8) + b[3]!;
  const fromInt = (n: number) => `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  const covered = (n: number) =>
    rows.some((r) => {
      const [f, l] = cidrBounds(r);
      return n >= toInt(f) && n <= toInt(l);
    });
  let checked = 0;
  for (const r of rows) {
    const [f, l] = cidrBounds(r);
    for (const n of [toInt(f) - 1, toInt(l) + 1]) {
      if (n < 0 || n > 0xffffffff || covered(n)) continue;
      allowed(fromInt(n));
      checked++;
    }
  }
  assert.ok(checked >= 20, `checked ${checked} neighbours`);
});

test('well-known public addresses are allowed', () => {
  for (const ip of [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '9.9.9.9',
    '223.255.255.255',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.255',
    '192.0.3.0',
    '198.17.255.255',
    '198.20.0.0',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:81c::200e',
    '2001:200::1',
    '2003::1',
    '2001:db9::1',
    '2001:db7:ffff::1',
    '3fff:1000::1',
  ])
    allowed(ip);
});

test('metadata addresses are denied with a reason', () => {
  assert.match(denied('169.254.169.254').reason, /link-local/);
  assert.match(denied('100.100.100.200').reason, /shared address space/); // Alibaba Cloud
  assert.match(denied('192.0.0.192').reason, /IETF/); // Oracle Cloud
  assert.match(denied('168.63.129.16').reason, /Azure/);
  assert.match(denied('fd00:ec2::254').reason, /unique local/); // AWS IPv6 metadata
  assert.match(denied('169.254.170.2').reason, /link-local/); // ECS task metadata
});

test('IPv4-mapped IPv6 is classified by its embedded IPv4 and dialled as IPv4', () => {
  assert.match(denied('::ffff:127.0.0.1').reason, /IPv4-mapped loopback/);
  assert.match(denied('::ffff:7f00:1').reason, /IPv4-mapped loopback/);
  assert.match(denied('::ffff:a9fe:a9fe').reason, /IPv4-mapped link-local/);
  assert.match(denied('0:0:0:0:0:ffff:10.1.2.3').reason, /IPv4-mapped private/);
  const ok = allowed('::ffff:8.8.8.8');
  assert.equal(ok.dial, '8.8.8.8');
});

test('IPv4-compatible, NAT64, 6to4 and Teredo forms embedding loopback or metadata are denied', () => {
  for (const ip of [
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::a9fe:a9fe',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '::ffff:0:7f00:1',
  ])
    denied(ip);
});

test('IPv6 outside 2000::/3 is denied even without a row', () => {
  for (const ip of ['4000::1', '1::1', '6000::1', 'e000::1', '5f00::1', '200::1']) assert.match(denied(ip).reason, /2000::\/3/);
});

test('the most specific row names the reason', () => {
  assert.match(denied('::1').reason, /loopback/);
  assert.match(denied('::').reason, /unspecified/);
  assert.match(denied('2001::1').reason, /Teredo/);
  assert.match(denied('2001:2::1').reason, /IETF protocol/);
});

test('only canonical address text is an address: other spellings are names, not IPs', () => {
  // WHATWG URL turns these into dotted quads first (host.test.ts); here they must not parse at all.
  for (const s of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '127.0.0.1.', '01.2.3.4', '256.0.0.1', '1.2.3', '1.2.3.4.5', ' 1.2.3.4', '1.2.3.4 ']) {
    assert.equal(parseIPv4(s), null, s);
    assert.equal(classifyIp(s).allowed, false, s);
  }
  for (const s of ['fe80::1%eth0', '1::2::3', ':::', '1:2:3:4:5:6:7:8:9', '12345::', 'g::1', '::ffff:1.2.3', '1:2:3:4:5:6:7:1.2.3.4', '']) {
    assert.equal(parseIPv6(s), null, s);
    assert.equal(classifyIp(s).allowed, false, s);
  }
});

test('IPv6 text forms parse to the same bytes', () => {
  const same = ['::1', '0:0:0:0:0:0:0:1', '0000:0000:0000:0000:0000:0000:0000:0001', '::0:1', '0::1', '[::1]'];
  for (const s of same) assert.equal(formatIp(parseIPv6(s.replace(/[[\]]/g, ''))!), '::1', s);
  assert.equal(formatIp(parseIPv6('::ffff:127.0.0.1')!), '::ffff:7f00:1');
  assert.equal(formatIp(parseIPv6('1:2:3:4:5:6:1.2.3.4')!), '1:2:3:4:5:6:102:304');
  assert.equal(formatIp(parseIPv6('2001:db8:0:0:1:0:0:1')!), '2001:db8::1:0:0:1');
  assert.equal(classifyIp('[fe80::1]').allowed, false);
});
