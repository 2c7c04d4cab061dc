// IP address parsing to bytes, and CIDR matching. Our own, small and strict: the classifier must not
// depend on a library's idea of "unicast" (threat model, "Address classification").
// Input is what the WHATWG URL parser, a DNS answer or Node's socket layer produces: canonical
// dotted-quad IPv4, or IPv6 text (compressed or not, optionally with a trailing dotted IPv4).
// Anything else (octal, hex, short forms, zone ids) is NOT an address here: callers normalise
// spellings with WHATWG `URL` first (see host.ts), so a string that fails here is a name.

export type IpBytes = Uint8Array; // 4 bytes (IPv4) or 16 bytes (IPv6)

/** Strict dotted-quad: four decimal octets 0-255, no leading zeros (so "0177.0.0.1" is not one). */
export function parseIPv4(s: string): IpBytes | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out[i] = n;
  }
  return out;
}

/** RFC 4291 §2.2 text forms: x:x:x:x:x:x:x:x, "::" compression, trailing dotted IPv4. No zone id. */
export function parseIPv6(s: string): IpBytes | null {
  if (s.length === 0 || s.length > 45 || !/^[0-9a-fA-F:.]+$/.test(s)) return null;
  let tail: number[] = [];
  let text = s;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.')) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4 || lastColon < 0) return null;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    const prefix = text.slice(0, lastColon + 1); // ends with ':'
    text = prefix.endsWith('::') ? prefix : prefix.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const toGroups = (h: string): number[] | null => {
    if (h === '') return [];
    const g = h.split(':');
    const out: number[] = [];
    for (const x of g) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(x)) return null;
      out.push(parseInt(x, 16));
    }
    return out;
  };
  const head = toGroups(halves[0]!);
  const rest = halves.length === 2 ? toGroups(halves[1]!) : [];
  if (!head || !rest) return null;
  const explicit = head.length + rest.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (explicit > 7) return null; // "::" stands for at least one group
    groups = [...head, ...new Array(8 - explicit).fill(0), ...rest, ...tail];
  } else {
    if (explicit !== 8) return null;
    groups = [...head, ...tail];
  }
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  return out;
}

/** Parses either family; IPv6 may come bracketed ("[::1]", as URL.hostname gives it). */
export function parseIp(s: string): IpBytes | null {
  const t = s.startsWith('[') && s.endsWith(']') ? s.slice(1, -1) : s;
  return parseIPv4(t) ?? parseIPv6(t);
}

export function formatIp(b: IpBytes): string {
  if (b.length === 4) return Array.from(b).join('.');
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((b[i]! << 8) | b[i + 1]!);
  // RFC 5952: compress the longest run (>= 2) of zero groups, leftmost on ties.
  let best = -1,
    bestLen = 0;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

export interface Cidr {
  bytes: IpBytes;
  prefix: number;
}

export function parseCidr(s: string): Cidr {
  const [addr, len] = s.split('/');
  const bytes = parseIp(addr ?? '');
  const prefix = Number(len);
  if (!bytes || !Number.isInteger(prefix) || prefix < 0 || prefix > bytes.length * 8) throw new Error(`bad CIDR ${s}`);
  return { bytes, prefix };
}

export function inCidr(ip: IpBytes, c: Cidr): boolean {
  if (ip.length !== c.bytes.length) return false;
  let bits = c.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((ip[i]! & mask) !== (c.bytes[i]! & mask)) return false;
  }
  return true;
}
