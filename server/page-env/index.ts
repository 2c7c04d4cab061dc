// The page environment a caller may set, applied to the prepared page before it loads:
//   headers, cookies (url mode)  sent to the target's own origin only (origin-headers.ts)
// colorScheme and userAgent are applied with the rest of the visitor's browser (server/emulation/):
// Chromium takes all emulated media in one call, and the user agent with the Accept-Language.
// Called from the render pipeline (server/render/pipeline.ts) through applyPageEnv; the page is
// one render's own (fresh incognito context), so nothing here outlives the request.
import type { Page } from 'puppeteer-core';
import type { Deadline } from '../toolkit/deadline.ts';
import type { ScreenshotRequest } from '../kinds/request.ts';
import { sendToOriginOnly } from './origin-headers.ts';

export interface PageEnv {
  dispose(): void;
}

const NOTHING: PageEnv = { dispose() {} };

/** Applies what the request asks for, as one render step; a request that asks for nothing costs nothing. */
export async function applyPageEnv(page: Page, req: ScreenshotRequest, targetUrl: string | undefined, deadline: Deadline): Promise<PageEnv> {
  if (targetUrl === undefined || (req.headers === undefined && req.cookies === undefined)) return NOTHING;
  return deadline.step('env', async () => ({ dispose: await sendToOriginOnly(page, targetUrl, { headers: req.headers, cookies: req.cookies }) }));
}
