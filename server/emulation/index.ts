// Emulating the visitor (request fields in ./fields.ts, resolved by ./resolve.ts): applied to the
// prepared page before it loads, so that the page's first inline script already sees every value,
// in url and html mode. One step of the render pipeline (server/render/pipeline.ts).
// The page is one render's own (a fresh incognito context), so nothing here outlives the request.
//
// How each value reaches the page (Chromium 156, measured with the pool's flags):
// - device: puppeteer's setViewport with the preset's mobile, touch and orientation. A change of
//   mobile or touch reloads the prepared about:blank, so that the document html mode writes into
//   is made with touch (a document keeps the touch APIs it was created with).
// - timezone (Emulation.setTimezoneOverride) and locale (Emulation.setLocaleOverride) hold for the
//   page's renderer process: every frame and dedicated worker in it.
// - locale is also navigator.language(s) and Accept-Language: Network.setUserAgentOverride's
//   acceptLanguage, one call with the user agent (a second call would replace the first). A
//   dedicated worker starts with the browser's languages; it gets the same override while it is
//   still paused before its first line (puppeteer's workercreated). The override carries no
//   client-hint metadata: the page then gets no Sec-CH-UA* headers and empty userAgentData brands.
// - colorScheme, reducedMotion and mediaType: one Emulation.setEmulatedMedia, which replaces every
//   emulated media value at each call.
// - geolocation: Emulation.setGeolocationOverride, and the permission granted to the target's own
//   origin only (Browser.grantPermissions). A headless browser refuses every other request for the
//   position at once: there is no one to ask.
// - javaScriptEnabled false: Emulation.setScriptExecutionDisabled. Our own code still runs through
//   CDP; what of it needs timers (the consent platforms' driver) is skipped (server/cleanup/).
// Every frame of the page runs in the page's renderer (the pool's Chromium has no strict site
// isolation) and sees all of it; an out-of-process frame would not (test/api/emulation.test.ts
// checks a cross-site iframe).
import type { Page, WebWorker } from 'puppeteer-core';
import { badRequest } from '../errors.ts';
import type { ScreenshotRequest } from '../kinds/request.ts';
import { disposer, traitedStep } from '../toolkit/step-shape.ts';
import type { StepLabel } from '../toolkit/step-names.ts';
import { devicePreset } from './devices.ts';
import { timezoneField } from './fields.ts';

type MediaFeature = { name: string; value: string };

/** The one setEmulatedMedia call of a request, or undefined when it asks for the browser's own. */
export function emulatedMedia(req: ScreenshotRequest): { media: string; features: MediaFeature[] } | undefined {
  const features = [
    ...(req.colorScheme ? [{ name: 'prefers-color-scheme', value: req.colorScheme }] : []),
    ...(req.reducedMotion ? [{ name: 'prefers-reduced-motion', value: req.reducedMotion }] : []),
  ];
  const media = req.mediaType === 'print' ? 'print' : '';
  return features.length || media ? { media, features } : undefined;
}

/** True when the request asks for anything of this room (a request that does not costs nothing). */
function asksForAny(req: ScreenshotRequest): boolean {
  return (
    req.device !== undefined ||
    req.timezone !== undefined ||
    req.locale !== undefined ||
    req.userAgent !== undefined ||
    req.geolocation !== undefined ||
    !req.javaScriptEnabled ||
    emulatedMedia(req) !== undefined
  );
}

/** The render step, before the page loads. */
const EMULATION: StepLabel = { name: 'emulation', description: 'emulating the visitor' };

export const applyEmulation = traitedStep({ times: [EMULATION] }, async ({ page, client, req, url: targetUrl, deadline }) => {
  if (!asksForAny(req)) return;
  return deadline.step(EMULATION, async () => {
    if (req.device !== undefined) {
      const p = devicePreset(req.device);
      await page.setViewport({ ...req.viewport, isMobile: p.mobile, hasTouch: p.touch, isLandscape: p.landscape });
    }
    if (req.timezone !== undefined) await setTimezone(page, req.timezone);
    let dispose = () => {};
    if (req.locale !== undefined || req.userAgent !== undefined) {
      const override = { userAgent: req.userAgent ?? (await page.browser().userAgent()), ...(req.locale !== undefined ? { acceptLanguage: req.locale } : {}) };
      if (req.locale !== undefined) {
        await client.send('Emulation.setLocaleOverride', { locale: req.locale });
        const onWorker = (w: WebWorker) => void w.client.send('Network.setUserAgentOverride', override).catch(() => {});
        page.on('workercreated', onWorker);
        dispose = () => void page.off('workercreated', onWorker);
      }
      await client.send('Network.setUserAgentOverride', override);
    }
    const media = emulatedMedia(req);
    if (media) await client.send('Emulation.setEmulatedMedia', media);
    if (req.geolocation !== undefined && targetUrl !== undefined) {
      await page.browserContext().overridePermissions(new URL(targetUrl).origin, ['geolocation']);
      await page.setGeolocation(req.geolocation);
    }
    if (!req.javaScriptEnabled) await page.setJavaScriptEnabled(false);
    return disposer(dispose);
  });
});

/** The browser's ICU may know fewer zones than ours: its refusal is the caller's 400 too. */
async function setTimezone(page: Page, zone: string): Promise<void> {
  try {
    await page.emulateTimezone(zone);
  } catch (e) {
    if (/invalid timezone/i.test(String(e))) throw badRequest(`timezone must be ${timezoneField['x-rule']}`);
    throw e;
  }
}
