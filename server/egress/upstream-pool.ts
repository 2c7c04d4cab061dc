// Kept-alive upstream connections for the proxy's plain-http requests (./proxy.ts). A page's
// subresources come a few at a time from each of its hosts, and every capture of a site asks the
// same hosts again: a fresh TCP connection per request, closed after it, cost the proxy a connect
// and a close on every one (measured on a page of 48 images from 24 hosts, loaded through the
// proxy in fresh contexts: 423-455 ms median to its load event per connection, 376-385 pooled,
// 313-359 without the proxy).
//
// The guard is unchanged: every request is decided by the policy first (./policy.ts), and a
// connection is reused only for a request whose verdict lists exactly the addresses it was dialled
// from (the pool's key is the port and the checked answer, not the name): a name that resolves
// elsewhere since, or to anything not public, never gets an old connection.
//
// Nothing is shared between requests (threat model, "Isolation"): the key also names the browser's
// own connection to the proxy that the request came on. Chromium keeps a socket pool per browser
// context, so a capture's requests never share a proxy connection with another capture's, and an
// upstream connection never serves two captures either: no connection-bound state (NTLM-style
// authentication, a response left on the wire by a page that desynchronised the stream) can reach
// another request's picture. Dialling is ./wire.ts's
// dial(), IP literals only. Idle connections are closed after IDLE_MS, below the usual servers'
// own keep-alive (Node and Apache 5 s); a request that fails on a reused connection before any
// answer (the server closed it meanwhile) is sent again once on a fresh one, as browsers do, when
// its method has no body to replay.
import http from 'node:http';
import type net from 'node:net';
import { dial } from './wire.ts';

/** Idle upstream connections are closed after this long. */
export const IDLE_MS = 2000;

/** Marks an error of dialling (no connection was made), as opposed to a failure after it. */
export interface DialError extends Error {
  egressDial: true;
}

interface PoolOptions {
  port: number;
  /** The verdict's addresses, in order: what may be dialled, and part of the pool's key. */
  dialList: string[];
  /** The browser's connection to the proxy the request came on: the rest of the key. */
  client: number;
}

export interface UpstreamPool {
  /** An http request to `port` at one of `dialList` (checked), on a kept-alive connection when one is free. */
  request(opts: { method: string; path: string; headers: string[]; port: number; dialList: string[]; client: number }): http.ClientRequest;
  destroy(): void;
}

export function upstreamPool(connectTimeoutMs: number): UpstreamPool {
  const agent = new http.Agent({ keepAlive: true, timeout: IDLE_MS });
  const hooks = agent as unknown as {
    getName(o: PoolOptions): string;
    createConnection(o: PoolOptions, cb: (e: Error | null, s?: net.Socket) => void): undefined;
  };
  hooks.getName = (o) => `${o.client}|${o.port}|${o.dialList.join(',')}`;
  hooks.createConnection = (o, cb) => {
    dial(o.dialList, o.port, connectTimeoutMs).then(
      (s) => cb(null, s),
      (e: Error) => cb(Object.assign(e, { egressDial: true as const })),
    );
    return undefined;
  };
  return {
    request: ({ method, path, headers, port, dialList, client }) =>
      http.request({ method, path, headers, agent, setHost: false, host: dialList[0], port, dialList, client } as http.RequestOptions),
    destroy: () => agent.destroy(),
  };
}

/** Methods a browser sends without a body: safe to send again when a reused connection was closed under them. */
export const REPLAYABLE = new Set(['GET', 'HEAD', 'OPTIONS']);
