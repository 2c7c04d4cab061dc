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
  /**
   * How long "no such name" is remembered, in seconds (default: maxTtlSeconds). c-ares does not
   * report the negative TTL of the zone's SOA (usually minutes), so a fixed short window stands in.
   */
  notFoundSeconds?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * Short-lived answer cache with in-flight coalescing. It makes the proxy's lookup right after the
 * pre-navigation check cheap and consistent. Safe by construction: cached answers are raw DNS
 * answers keyed by exact name; each use classifies them again. "No such name" is remembered too:
 * a page names the same unreachable third-party hosts at every capture, and resolvers limit how
 * many queries a client may send at once (one measured here drops what passes a burst of ~50
 * queries, and c-ares asks again only after ~1 s: a page with 30 such hosts loaded in 1.2 s
 * instead of 0.13 s, every time). Remembering a refusal only refuses again (fail closed); other
 * failures (timeouts, SERVFAIL) are not cached.
 */
export function cachingResolver(inner: HostResolver, opts: CacheOptions = {}): HostResolver {
  const maxTtl = (opts.maxTtlSeconds ?? 30) * 1000;
  const notFoundMs = (opts.notFoundSeconds ?? opts.maxTtlSeconds ?? 30) * 1000;
  const maxEntries = opts.maxEntries ?? 1000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { value: Resolved | ResolveError; expires: number }>();
  const inflight = new Map<string, Promise<Resolved>>();
  const remember = (name: string, value: Resolved | ResolveError, ms: number) => {
    if (ms <= 0) return;
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
    cache.set(name, { value, expires: now() + ms });
  };
  return {
    async resolve(name) {
      const hit = cache.get(name);
      if (hit && hit.expires > now()) {
        if (hit.value instanceof ResolveError) throw new ResolveError(hit.value.kind, hit.value.message);
        return hit.value;
      }
      if (hit) cache.delete(name);
      const pending = inflight.get(name);
      if (pending) return pending;
      const p = inner.resolve(name).then(
        (value) => {
          remember(name, value, Math.min(value.ttl * 1000, maxTtl));
          return value;
        },
        (err: unknown) => {
          if (err instanceof ResolveError && err.kind === 'notfound') remember(name, err, notFoundMs);
          throw err;
        },
      );
      inflight.set(name, p);
      try {
        return await p;
      } finally {
        inflight.delete(name);
      }
    },
  };
}
