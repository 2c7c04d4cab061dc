// The two server baselines of the bench, written here so that they run on the same browser
// binary with the same flags: `naive` creates an incognito context and page per request;
// `per-launch` launches a whole browser per request (what several popular tools do). Both take
// the request's html, viewport, fullPage, format and quality (defaults as ours: 1280x720 PNG) and
// answer the image bytes of puppeteer's page.screenshot after load, so that they capture the same
// picture ours does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchBrowser } from '../server/toolkit/browser.ts';

export interface Baseline {
  url: string;
  close(): Promise<void>;
}

interface BaselineRequest {
  html: string;
  viewport?: { width: number; height: number };
  fullPage?: boolean;
  format?: 'png' | 'jpeg' | 'webp';
  quality?: number;
}

async function readJson(req: http.IncomingMessage): Promise<BaselineRequest> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export async function startBaselineServer(kind: 'naive' | 'per-launch', executablePath: string): Promise<Baseline> {
  const shared = kind === 'naive' ? await launchBrowser({ executablePath, args: [] }) : undefined;
  const server = http.createServer(async (req, res) => {
    try {
      const { html, viewport, fullPage, format = 'png', quality } = await readJson(req);
      const launched = shared ?? (await launchBrowser({ executablePath, args: [] }));
      const context = await launched.browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.setViewport(viewport ?? { width: 1280, height: 720 });
        await page.setContent(html, { waitUntil: 'load' });
        const bytes = await page.screenshot({ type: format, fullPage: fullPage ?? false, ...(format !== 'png' ? { quality: quality ?? 80 } : {}) });
        res.writeHead(200, { 'content-type': `image/${format}` }).end(bytes);
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
