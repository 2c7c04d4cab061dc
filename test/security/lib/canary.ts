// Canary listeners: sockets on internal addresses that must see zero connections (threat model,
// DESIGN §4). A TCP canary counts accepted connections; a UDP canary counts datagrams (WebRTC STUN,
// QUIC). Each records who connected, for the failure message.
import net from 'node:net';
import dgram from 'node:dgram';

export interface Canary {
  readonly host: string;
  readonly port: number;
  /** "host:port" with IPv6 bracketed. */
  readonly origin: string;
  readonly hits: string[];
  close(): Promise<void>;
}

const originOf = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

export async function tcpCanary(host: string, port = 0): Promise<Canary> {
  const hits: string[] = [];
  const server = net.createServer((s) => {
    hits.push(`${s.remoteAddress}:${s.remotePort}`);
    s.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, ipv6Only: host.includes(':') }, () => resolve());
  });
  const p = (server.address() as net.AddressInfo).port;
  return { host, port: p, origin: originOf(host, p), hits, close: () => new Promise((r) => server.close(() => r())) };
}

export async function udpCanary(host: string, port = 0): Promise<Canary> {
  const hits: string[] = [];
  const sock = dgram.createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', ipv6Only: host.includes(':') });
  sock.on('message', (_m, r) => hits.push(`${r.address}:${r.port}`));
  await new Promise<void>((resolve, reject) => {
    sock.once('error', reject);
    sock.bind(port, host, () => resolve());
  });
  const p = sock.address().port;
  return { host, port: p, origin: originOf(host, p), hits, close: () => new Promise((r) => sock.close(() => r())) };
}
