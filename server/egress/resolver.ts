// Name resolution for the egress guard (threat model "Names and resolution"). One resolver serves
// both the pre-navigation check and the proxy, so they see the same answers; the proxy dials only
// addresses from an answer it classified (no rebinding window, DESIGN §4).
// - A and AAAA are both asked; every answer is returned (the caller rejects if ANY is non-public).
// - Fail closed: a timeout, SERVFAIL, refusal or any error other than "no such name / no such
//   record" is a ResolveError('failure'), never an empty success.
// - /etc/hosts is deliberately not consulted (dns.Resolver speaks DNS only): local aliases are not
//   public hosts.
import { Resolver } from 'node:dns/promises';

export interface Resolved {
  addresses: string[];
  /** Smallest TTL among the answers, in seconds. */
  ttl: number;
}

export interface HostResolver {
  resolve(name: string): Promise<Resolved>;
}

export class ResolveError extends Error {
  constructor(
    readonly kind: 'notfound' | 'failure',
    message: string,
  ) {
    super(message);
    this.name = 'ResolveError';
  }
}

const NO_ANSWER = new Set(['ENOTFOUND', 'ENODATA']);

export interface DnsResolverOptions {
  /** DNS servers ("127.0.0.1:5353", "[::1]:53"); default: the system's (/etc/resolv.conf). */
  servers?: string[];
  timeoutMs?: number;
  tries?: number;
}

/** A and AAAA over DNS with node:dns's Resolver (c-ares), in parallel. */
export function createDnsResolver(opts: DnsResolverOptions = {}): HostResolver {
  const r = new Resolver({ timeout: opts.timeoutMs ?? 2500, tries: opts.tries ?? 2 });
  if (opts.servers?.length) r.setServers(opts.servers);
  const query = async (name: string, family: 4 | 6) => {
    try {
      return family === 4 ? await r.resolve4(name, { ttl: true }) : await r.resolve6(name, { ttl: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      if (NO_ANSWER.has(code)) return [];
      throw new ResolveError('failure', `DNS lookup of ${name} failed (${code})`);
    }
  };
  return {
    async resolve(name) {
      const [a, aaaa] = await Promise.all([query(name, 4), query(name, 6)]);
      const all = [...a, ...aaaa];
      if (all.length === 0) throw new ResolveError('notfound', `${name} does not resolve`);
      return { addresses: all.map((x) => x.address), ttl: Math.min(...all.map((x) => x.ttl)) };
    },
  };
}

export interface CacheOptions {
  /** Upper bound on how long an answer is reused, in seconds (DNS TTLs below it are honoured). */
  maxTtlSeconds?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * Short-lived answer cache with in-flight coalescing. It makes the proxy's lookup right after the
 * pre-navigation check cheap and consistent. Safe by construction: cached answers are raw DNS
 * answers keyed by exact name; each use classifies them again. Failures are not cached.
 */
export function cachingResolver(inner: HostResolver, opts: CacheOptions = {}): HostResolver {
  const maxTtl = (opts.maxTtlSeconds ?? 30) * 1000;
  const maxEntries = opts.maxEntries ?? 1000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { value: Resolved; expires: number }>();
  const inflight = new Map<string, Promise<Resolved>>();
  return {
    async resolve(name) {
      const hit = cache.get(name);
      if (hit && hit.expires > now()) return hit.value;
      if (hit) cache.delete(name);
      const pending = inflight.get(name);
      if (pending) return pending;
      const p = inner.resolve(name).then((value) => {
        const ms = Math.min(value.ttl * 1000, maxTtl);
        if (ms > 0) {
          if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
          cache.set(name, { value, expires: now() + ms });
        }
        return value;
      });
      inflight.set(name, p);
      try {
        return await p;
      } finally {
        inflight.delete(name);
      }
    },
  };
}
