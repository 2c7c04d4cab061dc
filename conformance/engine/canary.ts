// Canary listeners (security profile and the private-target cases): TCP listeners on loopback that
// count every connection. A target that must be rejected "before any connection" (spec §4.1 rule 8)
// points at a canary; the case fails if the canary saw a connection. Each case starts its own
// canary on a free port, so a connection is attributed to exactly one case. Canaries are only
// meaningful when the implementation runs on the same host as the suite (need `canary`).
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { CanarySpelling } from '../model/model.ts';

export interface Canary {
  readonly port: number;
  /** Connections seen so far (IPv4 and IPv6 loopback). */
  connections(): number;
  url(path?: string, spelling?: CanarySpelling): string;
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<number | null> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(null));
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

export function canaryUrl(port: number, path = '/', spelling: CanarySpelling = 'ipv4'): string {
  const p = path.startsWith('/') ? path : `/${path}`;
  switch (spelling) {
    case 'ipv4':
      return `http://127.0.0.1:${port}${p}`;
    case 'localhost':
      return `http://localhost:${port}${p}`;
    case 'decimal':
      return `http://2130706433:${port}${p}`;
    case 'hex':
      return `http://0x7f000001:${port}${p}`;
    case 'octal':
      return `http://0177.0.0.1:${port}${p}`;
    case 'short':
      return `http://127.1:${port}${p}`;
    case 'ipv6':
      return `http://[::1]:${port}${p}`;
    case 'mapped':
      return `http://[::ffff:127.0.0.1]:${port}${p}`;
    case 'trailing-dot':
      return `http://localhost.:${port}${p}`;
    case 'userinfo':
      return `http://fixtures.example@127.0.0.1:${port}${p}`;
    case 'upper-scheme':
      return `HTTP://127.0.0.1:${port}${p}`;
  }
}

export async function startCanary(): Promise<Canary> {
  let count = 0;
  const sockets = new Set<Socket>();
  const onConnection = (s: Socket) => {
    count++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    // Answer like a tiny web server so that a broken implementation renders something visible.
    s.once('data', () => s.end('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n\r\n<body style="background:#ff00ff">CANARY</body>'));
  };
  const v4 = createServer(onConnection);
  const port = await listen(v4, '127.0.0.1', 0);
  if (port === null) throw new Error('canary: cannot listen on 127.0.0.1');
  const v6 = createServer(onConnection);
  const v6port = await listen(v6, '::1', port); // same port on IPv6 loopback when available
  const servers = v6port === null ? [v4] : [v4, v6];
  return {
    port,
    connections: () => count,
    url: (path = '/', spelling: CanarySpelling = 'ipv4') => canaryUrl(port, path, spelling),
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
