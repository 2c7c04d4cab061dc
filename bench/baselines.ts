// The two server baselines of the bench, written here so that they run on the same browser
// binary with the same flags: `naive` creates an incognito context and page per request;
// `per-launch` launches a whole browser per request (what several popular tools do). Both take
// the same JSON body (html only) and answer PNG bytes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchBrowser } from '../server/render/browser.ts';

export interface Baseline {
  url: string;
  close(): Promise<void>;
}

async function readJson(req: http.IncomingMessage): Promise<{ html: string }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export async function startBaselineServer(kind: 'naive' | 'per-launch', executablePath: string): Promise<Baseline> {
  const shared = kind === 'naive' ? await launchBrowser({ executablePath, args: [] }) : undefined;
  const server = http.createServer(async (req, res) => {
    try {
      const { html } = await readJson(req);
      const launched = shared ?? (await launchBrowser({ executablePath, args: [] }));
      const context = await launched.browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.setViewport({ width: 1280, height: 720 });
        await page.setContent(html, { waitUntil: 'load' });
        const png = await page.screenshot({ type: 'png' });
        res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      } finally {
        await context.close().catch(() => {});
        if (!shared) await launched.close();
      }
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      await new Promise((r) => server.close(r));
      await shared?.close();
    },
  };
}
