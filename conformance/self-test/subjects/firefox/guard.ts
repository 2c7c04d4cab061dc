// The private-target check of spec §4.1 rule 8: before the browser navigates, the url's host is
// resolved and every address it resolves to must be public. Loopback, private, carrier-grade NAT,
// link-local (cloud metadata lives at 169.254.169.254), unspecified, multicast and reserved ranges
// are refused, in IPv4 and IPv6 (IPv4-mapped and NAT64 forms are unwrapped first).
//
// `allow` lists exact origins (host:port) that are treated as public anyway: the conformance suite's
// fixture server on loopback, like the reference server's EGRESS_ALLOW. It is empty unless given.
//
// A limit of this small subject, on purpose: only the top-level url is checked. Redirects,
// subresources and DNS rebinding between this check and Firefox's own lookup are not guarded
// (the reference server's egress guard does that; the suite's `security` profile covers it).
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, bits, 'ipv6');

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address. */
function embeddedV4(ip: string): string | undefined {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (!m) return undefined;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

export function isPrivateAddress(ip: string): boolean {
  const v4 = isIP(ip) === 6 ? embeddedV4(ip) : undefined;
  if (v4) return blocked.check(v4, 'ipv4');
  return isIP(ip) === 4 ? blocked.check(ip, 'ipv4') : blocked.check(ip, 'ipv6');
}

/** Resolves to a reason when the url must not be fetched, or undefined when it is a public target. */
export async function privateTargetReason(href: string, allow: ReadonlySet<string>): Promise<string | undefined> {
  const u = new URL(href);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const host = u.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (allow.has(`${host}:${port}`) || allow.has(`[${host}]:${port}`)) return undefined;
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return 'url host does not resolve';
    }
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) return 'url targets a private, loopback, link-local or metadata address';
  return undefined;
}
