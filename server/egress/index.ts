// Egress guard (spec §1, §4.1 rule 8; DESIGN §4; threat model): wires the policy (classifier +
// name rules + resolver + EGRESS_ALLOW) to the pre-navigation check and the filtering proxy.
//   classifier.ts  which IPs are public          host.ts    URL/authority parsing, name rules
//   resolver.ts    A+AAAA lookups, short cache   policy.ts  may host:port be reached, at which IPs
//   check.ts       checkUrl -> domain errors     proxy.ts   the proxy Chromium is forced through
//   chromium-flags.ts  the launch flags that force it
import { checkUrl, pinUrl, type PinnedUrl } from './check.ts';
import { createPolicy } from './policy.ts';
import { startProxy, type EgressLog, type ProxyEvent, type ProxyStats } from './proxy.ts';
import { cachingResolver, createDnsResolver, type HostResolver } from './resolver.ts';

export { egressLaunchArgs } from './chromium-flags.ts';
export type { EgressLog, ProxyEvent, ProxyStats, HostResolver, PinnedUrl };

export interface EgressOptions {
  /** Exact host:port origins treated as public (EGRESS_ALLOW; test fixtures only). */
  allow: string[];
  /** Resolver for every name (pre-check and proxy). Default: system DNS servers, A+AAAA. */
  resolver?: HostResolver;
  /** Shorthand for a DNS resolver pointed at these servers (e.g. a test DNS server on loopback). */
  dnsServers?: string[];
  /** How long DNS answers are reused, at most (seconds; DNS TTLs below it are honoured). Default 30. */
  dnsCacheSeconds?: number;
  /** Structured log sink (refusals at warn). Fields never contain paths, queries, headers or bodies. */
  log?: EgressLog;
}

export interface EgressGuard {
  /** Port of the in-process filtering proxy on 127.0.0.1 (Chromium gets --proxy-server). */
  readonly proxyPort: number;
  /**
   * The friendly pre-navigation check: throws TargetBlocked (400 bad_request) if the url's scheme
   * is not http(s), it has userinfo, or any address its host resolves to is not public;
   * NavigationFailed (502) when the name does not resolve. Resolves to the normalised href.
   */
  checkUrl(url: string): Promise<string>;
  /** checkUrl for a request the server makes itself (webhooks): also the checked addresses to dial. */
  pinUrl(url: string): Promise<PinnedUrl>;
  /** Proxy counters and the most recent decisions (tests, metrics). */
  stats(): ProxyStats;
  close(): Promise<void>;
}

export async function startEgressGuard(opts: EgressOptions): Promise<EgressGuard> {
  const resolver = cachingResolver(opts.resolver ?? createDnsResolver({ servers: opts.dnsServers }), {
    maxTtlSeconds: opts.dnsCacheSeconds ?? 30,
  });
  const policy = createPolicy({ allow: opts.allow, resolver });
  if (policy.allow.length > 0) {
    // DESIGN §3: EGRESS_ALLOW is logged loudly at start.
    const line = `EGRESS_ALLOW is set: ${policy.allow.join(', ')} treated as public. Test fixtures only; never in production.`;
    if (opts.log) opts.log('warn', line, { egressAllow: policy.allow });
    else process.emitWarning(line, 'EgressAllowWarning');
  }
  const proxy = await startProxy({ policy, log: opts.log });
  return {
    proxyPort: proxy.port,
    checkUrl: (url) => checkUrl(policy, url),
    pinUrl: (url) => pinUrl(policy, url),
    stats: () => proxy.stats(),
    close: () => proxy.close(),
  };
}
