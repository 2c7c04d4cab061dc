// Target parsing and name rules (threat model "Spellings of one address", "Schemes", "Names and
// resolution"). One WHATWG parse decides what a string means: it folds decimal/hex/octal/short IPv4,
// IDNA and full-width characters, percent-encoding, backslashes and scheme case into one canonical
// host, which is then the only thing classified, resolved and dialled (DESIGN §4).
import { parseIp } from './ip.ts';

export interface Target {
  /** Canonical host: lower-case name without trailing dot, dotted IPv4, or bare (unbracketed) IPv6. */
  host: string;
  port: number;
  /** True when host is an IP literal (no resolution needed). */
  isIp: boolean;
  /** "host:port" with IPv6 bracketed: the form EGRESS_ALLOW entries are compared with. */
  origin: string;
}

/** An address that does not parse as a target (refused as blocked; not the 424 TargetError of server/errors.ts). */
export class MalformedTarget extends Error {}

const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 };

function fromParsed(u: URL, scheme: string): Target {
  let host = u.hostname; // already canonical: WHATWG host parser ran
  if (host.startsWith('[')) host = host.slice(1, -1);
  else if (host.endsWith('.')) host = host.slice(0, -1); // "localhost." means localhost
  if (host === '' || host.endsWith('.')) throw new MalformedTarget('the host is empty or malformed');
  const port = u.port === '' ? DEFAULT_PORT[scheme]! : Number(u.port);
  const isIp = parseIp(host) !== null;
  const origin = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { host, port, isIp, origin };
}

/**
 * Parses a navigation / request URL. Only http: and https: pass (threat model "Schemes"); userinfo
 * is rejected (it is only ever a trick: `http://a@127.0.0.1/`). Returns the canonical target and
 * the normalised href the browser must be given instead of the raw string.
 */
export function parseTargetUrl(raw: string): { target: Target; href: string } {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new MalformedTarget('url must be an absolute http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new MalformedTarget(`url scheme ${JSON.stringify(u.protocol.slice(0, 20))} is not allowed (only http and https)`);
  }
  if (u.username !== '' || u.password !== '') throw new MalformedTarget('url must not contain userinfo (user:password@)');
  return { target: fromParsed(u, u.protocol), href: u.href };
}

/**
 * Parses a proxy authority ("host:port" of CONNECT, or the host of an absolute-URI request) through
 * the same WHATWG parser, so the proxy and the pre-navigation check agree on every spelling.
 */
export function parseAuthority(authority: string, defaultPort: number): Target {
  if (!/^[^\s/?#@\\]+$/.test(authority)) throw new MalformedTarget('malformed authority');
  let u: URL;
  try {
    u = new URL(`http://${authority}/`);
  } catch {
    throw new MalformedTarget('malformed authority');
  }
  const t = fromParsed(u, 'http:');
  // URL drops an explicit :80 for http:; keep what was asked for.
  const m = /:(\d{1,5})$/.exec(authority);
  const port = m ? Number(m[1]) : defaultPort;
  if (port < 1 || port > 65535) throw new MalformedTarget('port out of range');
  return { ...t, port, origin: `${t.host.includes(':') ? `[${t.host}]` : t.host}:${port}` };
}

/** Name suffixes that never denote a public internet host (RFC 6761, RFC 6762, RFC 8375, ICANN). */
const LOCAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'localdomain',
  'home.arpa',
  'arpa',
  'lan',
  'intranet',
  'corp',
  'home',
  'private',
  'svc',
  'onion',
  'invalid',
];

/** Cloud metadata host names outside the suffixes above (threat model "metadata host names"). */
const METADATA_NAMES = ['metadata.goog', 'metadata.tencentyun.com', 'metadata.platformequinix.com', 'metadata.packet.net'];

/**
 * Rules on the name itself, before any resolution: names that mean loopback without DNS
 * (localhost, *.localhost), single-label names (resolver search domains make them internal),
 * internal-only suffixes and metadata names. Returns the reason, or null if the name may be resolved.
 */
export function nameRuleViolation(host: string): string | null {
  const h = host.toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return 'a loopback name';
  if (!h.includes('.')) return 'a single-label name (resolves only inside a local network)';
  for (const s of LOCAL_SUFFIXES) if (h === s || h.endsWith(`.${s}`)) return `an internal-only name (.${s})`;
  if (METADATA_NAMES.includes(h)) return 'a cloud metadata host name';
  return null;
}
