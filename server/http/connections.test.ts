// Connection hygiene at the socket level (connections.ts), on a bare HTTP server over loopback:
// the races between a client's kept-alive connection and the server's timers. The API-level
// timeouts and the per-address limit are tested through the real server in test/api/connections.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { checkingIntervalMs, limitConnections, type ConnectionLimits } from './connections.ts';

// undici keeps a connection only if the server's Keep-Alive hint leaves it more than 2 s
// (its keepAliveTimeoutThreshold): 3 s here, and Node closes 1 s after the hint (keepAliveTimeoutBuffer).
const limits: ConnectionLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 3000, idleTimeoutMs: 10_000, perAddress: 8 };
const SERVER_CLOSES_AFTER_MS = limits.keepAliveTimeoutMs + 1000;

let server: http.Server;
let url: string;
before(async () => {
  server = http.createServer({ connectionsCheckingInterval: checkingIntervalMs(limits) }, (req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  limitConnections(server, limits, () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** Blocks this process's event loop (client and server alike), as a synchronous step of a test does. */
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

test('a request that reached the server while its process was busy past the keep-alive timeout is served, not reset', async () => {
  // The request goes out on the kept-alive connection from a timer callback, which then keeps the
  // process busy past the server's keep-alive timeout: when the loop runs again, the server's
  // timer comes before the read of the request. undici counts its idle time in ticks of its own
  // timer, so it does not see the stall and rightly reuses the connection. Destroying the socket
  // then (what the server did) answered a request that arrived in time with a reset: ECONNRESET.
  const agent = new Agent({ connections: 1 });
  try {
    for (let i = 0; i < 2; i++) {
      const first = await fetch(url, { method: 'POST', body: 'a', dispatcher: agent });
      assert.equal(await first.text(), 'ok');
      const sent = await new Promise<{ reply: Promise<string> }>((resolve) =>
        setTimeout(() => {
          const reply = fetch(url, { method: 'POST', body: 'b', dispatcher: agent }).then((r) => r.text());
          reply.catch(() => undefined);
          block(SERVER_CLOSES_AFTER_MS + 700);
          resolve({ reply });
        }, 0),
      );
      const got = await sent.reply.catch((e: Error) => `${e} (${(e.cause as Error | undefined)?.message})`);
      assert.equal(got, 'ok', `try ${i + 1}`);
    }
  } finally {
    await agent.close();
  }
});
