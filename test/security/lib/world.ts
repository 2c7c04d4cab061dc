// The battery's world inside the network namespace: public-looking fixture addresses and internal
// canary addresses on `lo`, a DNS server on 127.0.0.1:53 (run-in-netns.sh points /etc/resolv.conf
// there, so the server under test uses its DEFAULT resolver), TCP and UDP canaries on every
// internal address, and the fixture site. Nothing here can reach beyond the namespace.
import { addLoopbackAddresses, assertIsolated } from './netns.ts';
import { tcpCanary, udpCanary, type Canary } from './canary.ts';
import { startDnsServer, type DnsAnswer, type TestDnsServer } from './dns-server.ts';
import type { Fixture } from '../../support/fixture.ts';
import { startFixtureSite } from './fixture-site.ts';

/** Public-looking addresses of the fixture site (global unicast; only on `lo` in the namespace). */
export const PUBLIC_V4 = '93.184.216.34';
export const PUBLIC_V6 = '2606:2800:220:1::1';

/** Internal addresses a guard must never let the browser reach, one per threat-model family. */
export const INTERNAL = {
  private10: '10.0.0.1',
  private172: '172.16.0.1',
  private192: '192.168.0.1',
  metadata: '169.254.169.254',
  alibabaMetadata: '100.100.100.200',
  azureWireServer: '168.63.129.16',
  oracleMetadata: '192.0.0.192',
  awsMetadataV6: 'fd00:ec2::254',
  ula: 'fd12:3456::1',
  loopback: '127.0.0.1',
  loopback2: '127.0.0.2',
  loopbackV6: '::1',
} as const;

export const ZONE: Record<string, (type: 'A' | 'AAAA', n: number) => DnsAnswer> = {
  'site.example.com': (t) => ({ addresses: t === 'A' ? [PUBLIC_V4] : [PUBLIC_V6], ttl: 60 }),
  'site4.example.com': (t) => ({ addresses: t === 'A' ? [PUBLIC_V4] : [], ttl: 60 }),
  'private.example.com': (t) => ({ addresses: t === 'A' ? [INTERNAL.private10] : [] }),
  'meta.example.com': (t) => ({ addresses: t === 'A' ? [INTERNAL.metadata] : [] }),
  'loop.example.com': (t) => ({ addresses: t === 'A' ? ['127.0.0.1'] : ['::1'] }),
  'mixed.example.com': (t) => ({ addresses: t === 'A' ? [PUBLIC_V4, INTERNAL.private10] : [] }),
  'mixed6.example.com': (t) => ({ addresses: t === 'A' ? [PUBLIC_V4] : [INTERNAL.awsMetadataV6] }),
  'mapped.example.com': (t) => ({ addresses: t === 'A' ? [] : ['::ffff:169.254.169.254'] }),
  '169.254.169.254.nip.io': (t) => ({ addresses: t === 'A' ? ['169.254.169.254'] : [] }),
  '10-0-0-1.sslip.io': (t) => ({ addresses: t === 'A' ? ['10.0.0.1'] : [] }),
  'metadata.google.internal.example.com': (t) => ({ addresses: t === 'A' ? ['169.254.169.254'] : [] }),
  // DNS rebinding: public for the check, internal as soon as it is asked again (TTL 0).
  'rebind.example.com': (t, n) => ({ addresses: t === 'A' ? [n === 1 ? PUBLIC_V4 : INTERNAL.private10] : [], ttl: 0 }),
  // Public for the check and the page load, internal for the page's later requests.
  'rebind-late.example.com': (t, n) => ({ addresses: t === 'A' ? [n <= 2 ? PUBLIC_V4 : INTERNAL.metadata] : [], ttl: 0 }),
  'servfail.example.com': () => 'servfail',
  'timeout.example.com': () => 'drop',
};

export interface World {
  dns: TestDnsServer;
  site: Fixture;
  /** Origin of the site on an EGRESS_ALLOW-listed loopback port (a secure context: SW, storage). */
  localSite: Fixture;
  tcp: Canary[];
  udp: Canary[];
  /** Every canary hit so far ("tcp 10.0.0.1:80 <- 127.0.0.1:4242"). */
  hits(): string[];
  close(): Promise<void>;
}

export async function buildWorld(): Promise<World> {
  assertIsolated();
  addLoopbackAddresses([PUBLIC_V4, PUBLIC_V6, ...Object.values(INTERNAL).filter((a) => a !== '127.0.0.1' && a !== '::1')]);
  const dns = await startDnsServer((name, type, n) => ZONE[name]?.(type, n) ?? 'nxdomain', '127.0.0.1', 53);
  const tcp: Canary[] = [];
  const udp: Canary[] = [];
  for (const host of Object.values(INTERNAL)) {
    for (const port of [80, 443]) tcp.push(await tcpCanary(host, port));
    udp.push(await udpCanary(host, 3478)); // STUN
    udp.push(await udpCanary(host, 443)); // QUIC
  }
  udp.push(await udpCanary(PUBLIC_V4, 3478), await udpCanary(PUBLIC_V4, 443), await udpCanary(PUBLIC_V4, 4433));
  const site = await startFixtureSite([
    { host: PUBLIC_V4, port: 80 },
    { host: PUBLIC_V6, port: 80 },
  ]);
  const localSite = await startFixtureSite([{ host: '127.0.0.1', port: 0 }]);
  return {
    dns,
    site,
    localSite,
    tcp,
    udp,
    hits: () => [...tcp.flatMap((c) => c.hits.map((h) => `tcp ${c.origin} <- ${h}`)), ...udp.flatMap((c) => c.hits.map((h) => `udp ${c.origin} <- ${h}`))],
    close: async () => {
      await Promise.all([...tcp, ...udp].map((c) => c.close()));
      await Promise.all([site.close(), localSite.close(), dns.close()]);
    },
  };
}
