// What the emulation fields mean together, decided once after validation (server/request/
// validate.ts calls resolveEmulation), so that the render path, the cache key and the response
// see the values that are applied, not the words that were sent:
// - device: the preset's viewport and userAgent, each replaced by the caller's own where sent.
//   viewport has a schema default, so "sent" is read from the body as the caller sent it: with a
//   viewport of width and height only, the preset's deviceScaleFactor stays. Mobile and touch stay
//   the preset's whatever the viewport (./index.ts reads them from the preset).
// - timezone and locale: one spelling each (./formats.ts).
// - deterministic: fixes the time zone (UTC) and prefers-reduced-motion (reduce) unless the
//   request fixes them itself: an explicit timezone or reducedMotion wins, and the capture stays
//   deterministic because the value is the request's, not the server's (server/determinism/).
import type { ScreenshotRequest } from '../kinds/request.ts';
import { devicePreset } from './devices.ts';
import { canonicalLocale, canonicalTimeZone } from './formats.ts';

/** deterministic's time zone when the request names none. */
export const DETERMINISTIC_TIMEZONE = 'UTC';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Resolves `req` (validated, defaults filled) in place; `sent` is the body as the caller sent it. */
export function resolveEmulation(req: ScreenshotRequest, sent: Record<string, unknown>): void {
  if (req.device !== undefined) {
    const preset = devicePreset(req.device);
    const asked = isObject(sent.viewport) ? sent.viewport : undefined; // the schema requires width and height when it is sent
    req.viewport = asked
      ? {
          width: req.viewport.width,
          height: req.viewport.height,
          deviceScaleFactor: asked.deviceScaleFactor !== undefined ? req.viewport.deviceScaleFactor : preset.viewport.deviceScaleFactor,
        }
      : { ...preset.viewport };
    req.userAgent ??= preset.userAgent;
  }
  if (req.timezone !== undefined) req.timezone = canonicalTimeZone(req.timezone) ?? req.timezone;
  else if (req.deterministic) req.timezone = DETERMINISTIC_TIMEZONE;
  if (req.locale !== undefined) req.locale = canonicalLocale(req.locale) ?? req.locale;
  if (req.reducedMotion === undefined && req.deterministic) req.reducedMotion = 'reduce';
}
