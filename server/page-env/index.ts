// The page environment a caller may set, applied to the prepared page before it loads:
//   headers, cookies (url mode)  sent to the target's own origin only (origin-headers.ts)
// colorScheme and userAgent are applied with the rest of the visitor's browser (server/emulation/):
// Chromium takes all emulated media in one call, and the user agent with the Accept-Language.
// One step of the render pipeline (server/render/pipeline.ts), applyPageEnv; the page is
// one render's own (fresh incognito context), so nothing here outlives the request.
import { disposer, traitedStep } from '../toolkit/step-shape.ts';
import type { StepLabel } from '../toolkit/step-names.ts';
import { sendToOriginOnly } from './origin-headers.ts';

const ENV: StepLabel = { name: 'env', description: 'setting the page environment' };

/** The render step: applies what the request asks for; a request that asks for nothing costs nothing. */
export const applyPageEnv = traitedStep({ times: [ENV] }, async ({ page, req, url: targetUrl, deadline }) => {
  if (targetUrl === undefined || (req.headers === undefined && req.cookies === undefined)) return;
  return disposer(await deadline.step(ENV, sendToOriginOnly(page, targetUrl, { headers: req.headers, cookies: req.cookies })));
});
