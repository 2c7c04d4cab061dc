// The address classifier: is this IP one the browser may reach? (spec §1, §4.1 rule 8; threat model
// "Address classification"). Rule: allow only globally routable unicast, then deny the table too.
//   IPv4: every address is unicast except the rows below (multicast, reserved, broadcast are rows).
//   IPv6: only 2000::/3 is global unicast; everything else is denied, and rows inside 2000::/3 too.
//   IPv4-mapped IPv6 (::ffff:0:0/96) is classified as the IPv4 it embeds, and dialled as that IPv4.
// Each row carries a label (it names the reason in 400 messages and refusal logs) and its source.
// classifier.test.ts checks every row at its first and last address, plus its neighbours.
import { parseIp, parseCidr, inCidr, formatIp, type Cidr, type IpBytes } from './ip.ts';

export interface DenyRow {
  cidr: string;
  label: string;
  /** Where the row comes from: an RFC, or the threat model's own list. */
  source: string;
}

/** Threat model IPv4 list, in its order, plus IANA special-purpose blocks that are not global. */
export const IPV4_DENY: readonly DenyRow[] = [
  { cidr: '0.0.0.0/8', label: '"this network"', source: 'RFC 791, threat model' },
  { cidr: '10.0.0.0/8', label: 'private', source: 'RFC 1918, threat model' },
  { cidr: '100.64.0.0/10', label: 'shared address space (CGNAT; includes a cloud metadata address)', source: 'RFC 6598, threat model' },
  { cidr: '127.0.0.0/8', label: 'loopback', source: 'RFC 1122, threat model' },
  { cidr: '169.254.0.0/16', label: 'link-local (includes the cloud metadata address)', source: 'RFC 3927, threat model' },
  { cidr: '172.16.0.0/12', label: 'private', source: 'RFC 1918, threat model' },
  { cidr: '192.0.0.0/24', label: 'IETF protocol assignments (includes a cloud metadata address)', source: 'RFC 6890, threat model' },
  { cidr: '192.0.2.0/24', label: 'documentation (TEST-NET-1)', source: 'RFC 5737, threat model' },
  { cidr: '192.88.99.0/24', label: '6to4 relay anycast (deprecated)', source: 'RFC 7526, threat model' },
  { cidr: '192.168.0.0/16', label: 'private', source: 'RFC 1918, threat model' },
  { cidr: '198.18.0.0/15', label: 'benchmarking', source: 'RFC 2544, threat model' },
  { cidr: '198.51.100.0/24', label: 'documentation (TEST-NET-2)', source: 'RFC 5737, threat model' },
  { cidr: '203.0.113.0/24', label: 'documentation (TEST-NET-3)', source: 'RFC 5737, threat model' },
  { cidr: '224.0.0.0/4', label: 'multicast', source: 'RFC 5771, threat model' },
  { cidr: '240.0.0.0/4', label: 'reserved', source: 'RFC 1112, threat model' },
  { cidr: '255.255.255.255/32', label: 'limited broadcast', source: 'RFC 919, threat model' },
  // "public-looking internal service addresses used by cloud providers" (threat model):
  { cidr: '168.63.129.16/32', label: 'cloud internal service (Azure WireServer / DNS / metadata relay)', source: 'Azure docs, threat model' },
  { cidr: '161.26.0.0/16', label: 'cloud internal service network (IBM Cloud)', source: 'IBM Cloud docs, threat model' },
  { cidr: '166.8.0.0/14', label: 'cloud private service endpoints (IBM Cloud)', source: 'IBM Cloud docs, threat model' },
];

/** Rows for IPv6. Outside 2000::/3 everything is denied anyway; the rows name the reason. */
export const IPV6_DENY: readonly DenyRow[] = [
  { cidr: '::/128', label: 'unspecified', source: 'RFC 4291, threat model' },
  { cidr: '::1/128', label: 'loopback', source: 'RFC 4291, threat model' },
  { cidr: '::/96', label: 'IPv4-compatible (deprecated)', source: 'RFC 4291, threat model' },
  // ::ffff:0:0/96 is not a row: it is classified by its embedded IPv4 (classifyBytes).
  { cidr: '64:ff9b::/96', label: 'NAT64 well-known prefix', source: 'RFC 6052, threat model' },
  { cidr: '64:ff9b:1::/48', label: 'NAT64 local-use prefix', source: 'RFC 8215, threat model' },
  { cidr: '2002::/16', label: '6to4', source: 'RFC 3056, threat model' },
  { cidr: '2001::/32', label: 'Teredo', source: 'RFC 4380, threat model' },
  { cidr: '2001:db8::/32', label: 'documentation', source: 'RFC 3849, threat model' },
  { cidr: '100::/64', label: 'discard-only', source: 'RFC 6666, threat model' },
  { cidr: 'fc00::/7', label: 'unique local (includes a cloud metadata address)', source: 'RFC 4193, threat model' },
  { cidr: 'fe80::/10', label: 'link-local', source: 'RFC 4291, threat model' },
  { cidr: 'fec0::/10', label: 'site-local (deprecated)', source: 'RFC 3879, threat model' },
  { cidr: 'ff00::/8', label: 'multicast', source: 'RFC 4291, threat model' },
  // Inside 2000::/3 but not globally reachable (IANA IPv6 special-purpose registry):
  { cidr: '2001::/23', label: 'IETF protocol assignments', source: 'RFC 2928, IANA special-purpose registry' },
  { cidr: '3fff::/20', label: 'documentation', source: 'RFC 9637' },
];

const GLOBAL_UNICAST_V6 = parseCidr('2000::/3');
const MAPPED_V4 = parseCidr('::ffff:0:0/96');

interface CompiledRow extends DenyRow {
  net: Cidr;
}
const compile = (rows: readonly DenyRow[]): CompiledRow[] => rows.map((r) => ({ ...r, net: parseCidr(r.cidr) }));
const V4 = compile(IPV4_DENY);
const V6 = compile(IPV6_DENY);

export type Classification =
  /** `dial` is the address to connect to (the embedded IPv4 for a mapped IPv6). */
  { allowed: true; address: string; dial: string } | { allowed: false; address: string; reason: string; row?: string };

export function classifyBytes(ip: IpBytes): Classification {
  const address = formatIp(ip);
  if (ip.length === 16 && inCidr(ip, MAPPED_V4)) {
    const inner = classifyBytes(ip.slice(12));
    return inner.allowed ? { allowed: true, address, dial: inner.address } : { allowed: false, address, reason: `IPv4-mapped ${inner.reason}`, row: inner.row };
  }
  const rows = ip.length === 4 ? V4 : V6;
  // Most specific row first, so 169.254.169.254 is named link-local/metadata and ::1 loopback.
  let hit: CompiledRow | undefined;
  for (const r of rows) if (inCidr(ip, r.net) && (!hit || r.net.prefix > hit.net.prefix)) hit = r;
  if (hit) return { allowed: false, address, reason: `${hit.label} (${hit.cidr})`, row: hit.cidr };
  if (ip.length === 16 && !inCidr(ip, GLOBAL_UNICAST_V6)) {
    return { allowed: false, address, reason: 'outside IPv6 global unicast (2000::/3)' };
  }
  return { allowed: true, address, dial: address };
}

/** Classifies an address string (DNS answer, URL hostname with or without brackets). */
export function classifyIp(s: string): Classification {
  const b = parseIp(s);
  if (!b) return { allowed: false, address: s, reason: 'not an IP address' };
  return classifyBytes(b);
}
