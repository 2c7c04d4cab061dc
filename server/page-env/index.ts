// The page environment a caller may set (issue 12), applied to the prepared page before it loads:
//   colorScheme  prefers-color-scheme emulation (light | dark)
//   userAgent    the User-Agent of the page and of all its requests
//   headers, cookies (url mode)  sent to the target's own origin only (origin-headers.ts)
// plus prefers-reduced-motion: reduce for deterministic renders (server/determinism/), because
// Chromium takes all emulated media features in one call and a second call would undo the first.
// Called from the render pipeline (server/render/pipeline.ts) through applyPageEnv; the page is
// one render's own (fresh incognito context), so nothing here outlives the request.
import type { MediaFeature, Page } from 'puppeteer-core';
import type { Deadline } from '../render/deadline.ts';
import type { ScreenshotRequest } from '../request/schema.ts';
import { sendToOriginOnly } from './origin-headers.ts';

export interface PageEnv {
  dispose(): void;
}

const NOTHING: PageEnv = { dispose() {} };

export function mediaFeatures(req: ScreenshotRequest): MediaFeature[] {
  return [
    ...(req.colorScheme ? [{ name: 'prefers-color-scheme', value: req.colorScheme }] : []),
    ...(req.deterministic ? [{ name: 'prefers-reduced-motion', value: 'reduce' }] : []),
  ];
}

/** Applies what the request asks for, as one render step; a request that asks for nothing costs nothing. */
export async function applyPageEnv(page: Page, req: ScreenshotRequest, targetUrl: string | undefined, deadline: Deadline): Promise<PageEnv> {
  const media = mediaFeatures(req);
  const extras = targetUrl !== undefined && (req.headers !== undefined || req.cookies !== undefined);
  if (!media.length && req.userAgent === undefined && !extras) return NOTHING;
  return deadline.step('env', async () => {
    if (media.length) await page.emulateMediaFeatures(media);
    if (req.userAgent !== undefined) await page.setUserAgent({ userAgent: req.userAgent });
    const detach = extras ? await sendToOriginOnly(page, targetUrl, { headers: req.headers, cookies: req.cookies }) : () => {};
    return { dispose: detach };
  });
}
