// A listener that answers only GET /metrics: for a process that serves no API (the batch worker),
// so that Prometheus, and whoever picks a worker by what it runs, can read it. Nothing else is
// served, so nothing of the API is reachable on it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { HEADER } from '../response/registry.ts';

export interface MetricsListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function listenForMetrics(registry: Registry, host: string, port: number): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { [HEADER.contentType]: 'application/json' }).end(JSON.stringify({ error: 'not_found', message: 'only GET /metrics is served here' }));
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { [HEADER.contentType]: registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
