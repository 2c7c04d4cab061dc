// The isolated floor: the cheapest capture that keeps the rules ours keeps (spec §1, DESIGN §4),
// behind a minimal HTTP server. A fresh incognito context and page per capture, prepared before
// the request and closed after the answer (server/toolkit/slot.ts, the server's own code); the
// server's own launch (server/toolkit/browser.ts: the same flags and sandbox) with its egress
// proxy in front (server/egress/: the guard's flags, every request of the page through it);
// then `setContent` (html) or `goto` (url) to `load`, and one `Page.captureScreenshot` with
// Chromium's default PNG encoder. No authentication, ledger, validation, clean-up or re-encode:
// what ours adds to it is what the bench's `ratioToIsolatedFloor` measures.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { egressLaunchArgs, startEgressGuard } from '../server/egress/index.ts';
import type { SandboxSettings } from '../server/sandbox/index.ts';
import { launchBrowser } from '../server/toolkit/browser.ts';
import { prepareSlot, type Slot } from '../server/toolkit/slot.ts';

export interface IsolatedFloor {
  url: string;
  close(): Promise<void>;
}

interface FloorRequest {
  html?: string;
  url?: string;
}

/** Slots kept prepared: two, so that a capture right after another never waits for one. */
const PREPARED = 2;

export async function startIsolatedFloor(executablePath: string, sandbox?: SandboxSettings, allow: string[] = []): Promise<IsolatedFloor> {
  const guard = await startEgressGuard({ allow, log: () => {} });
  const launched = await launchBrowser({ executablePath, args: egressLaunchArgs(guard.proxyPort), sandbox });
  const ready: Slot[] = [];
  const waiting: Array<(s: Slot) => void> = [];
  let preparing = 0;
  // Prepared while no capture runs: after the answer, as ours refills its slots (server/pool/supervisor.ts).
  const refill = () => {
    while (ready.length + preparing < PREPARED) {
      preparing++;
      void prepareSlot(launched.browser)
        .then((s) => (waiting.length ? waiting.shift()!(s) : ready.push(s)))
        .catch(() => {})
        .finally(() => preparing--);
    }
  };
  const take = () => new Promise<Slot>((r) => (ready.length ? r(ready.shift()!) : waiting.push(r)));
  refill();

  const server = http.createServer(async (req, res) => {
    let slot: Slot | undefined;
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FloorRequest;
      slot = await take();
      const t0 = performance.now();
      if (body.url) await slot.page.goto(body.url, { waitUntil: 'load' });
      else await slot.page.setContent(body.html ?? '', { waitUntil: 'load' });
      const t1 = performance.now();
      const { data } = await slot.client.send('Page.captureScreenshot', { format: 'png' });
      const t2 = performance.now();
      // The same step names as ours's Server-Timing (server/toolkit/step-names.ts), for the bench's step-by-step table.
      const timing = `load;dur=${(t1 - t0).toFixed(1)}, capture;dur=${(t2 - t1).toFixed(1)}`;
      res.writeHead(200, { 'content-type': 'image/png', 'server-timing': timing }).end(Buffer.from(data, 'base64'));
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
    } finally {
      if (slot) await slot.dispose();
      refill();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    async close() {
      await new Promise((r) => server.close(r));
      await Promise.all(ready.splice(0).map((s) => s.dispose()));
      await launched.close();
      await guard.close();
    },
  };
}
