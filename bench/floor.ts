// The floor: what a capture costs with nothing of ours around it. One browser, one page per worker
// kept open and reused (no isolation), setContent + Chromium's default capture (puppeteer's
// page.screenshot with the request's type, quality and fullPage). A request waits for a free
// worker, as ours waits for a free render slot, so open-loop latency includes the queue.
import type { Page } from 'puppeteer-core';
import { launchBrowser } from '../server/toolkit/browser.ts';
import type { Sample } from './measure.ts';
import type { BenchPage } from './pages.ts';

export interface Floor {
  shoot(p: BenchPage): Promise<Sample>;
  close(): Promise<void>;
}

export async function startFloor(executablePath: string, workers: number, args: string[] = []): Promise<Floor> {
  const launched = await launchBrowser({ executablePath, args });
  const free: Page[] = [];
  for (let i = 0; i < workers; i++) free.push(await launched.browser.newPage());
  const waiting: Array<(p: Page) => void> = [];
  const acquire = () => new Promise<Page>((r) => (free.length ? r(free.pop()!) : waiting.push(r)));
  const release = (p: Page) => (waiting.length ? waiting.shift()!(p) : free.push(p));
  return {
    async shoot(p) {
      const t = performance.now();
      const page = await acquire();
      try {
        const vp = p.req.viewport ?? { width: 1280, height: 720 };
        const cur = page.viewport();
        if (cur?.width !== vp.width || cur?.height !== vp.height) await page.setViewport(vp);
        await page.setContent(p.html, { waitUntil: 'load' });
        const format = p.req.format ?? 'png';
        const bytes = await page.screenshot({ type: format, fullPage: p.req.fullPage ?? false, ...(format !== 'png' ? { quality: p.req.quality ?? 80 } : {}) });
        return { ms: performance.now() - t, ok: bytes.length > 0, tag: p.name };
      } finally {
        release(page);
      }
    },
    close: () => launched.close(),
  };
}
