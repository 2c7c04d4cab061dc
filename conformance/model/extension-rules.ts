// The rules of the request fields beyond the spec (extensions profile; spec §9: an implementation
// may ignore them), part of the coverage manifest (rules.ts). Each quote is the field's contract;
// the field's description in the implementation's schema says it.
import { ext, type Rule } from './rule.ts';

export const EXTENSION_RULES: readonly Rule[] = [
  ext('X/cacheTtl', '`cacheTtl`: seconds a cached capture of the same url-mode request may be reused; 0 always renders afresh.'),
  ext(
    'X/deterministic',
    '`deterministic`: what moves on its own stands still, so that two captures of an unchanged page are identical (virtual time from 2025-01-01T00:00:00Z, seeded Math.random, animations finished or stopped).',
  ),
  ext('X/colorScheme', '`colorScheme`: the page sees `prefers-color-scheme` as `light` or `dark`.'),
  ext(
    'X/compare',
    '`POST /v1/compare`: a capture compared with a baseline (a picture, or a second capture request); `x-diff-pixels` counts the differing pixels outside the masks (`ignoreRegions`, `ignoreSelectors`), `x-diff-regions` says where they are, in picture pixels.',
  ),
  ext('X/userAgent', "`userAgent`: the page's navigator.userAgent and the User-Agent of its requests."),
  ext('X/headers', "`headers` (url mode): request headers sent to the target's own origin only."),
  ext('X/cookies', "`cookies` (url mode): cookies sent to the target's own origin only."),
  ext(
    'X/device',
    "`device`: a preset by name (GET /v1/devices lists them): its viewport and scale, a mobile viewport, touch and its user agent together; an explicit viewport or userAgent replaces the preset's.",
  ),
  ext(
    'X/timezone',
    "`timezone`: an IANA time zone; the page's Date, Intl and time-zone offset, from its first inline script, in every frame and dedicated worker; an unknown zone is a 400 naming the field.",
  ),
  ext(
    'X/locale',
    "`locale`: a BCP 47 tag; navigator.language(s), the default Intl locale and the Accept-Language of the page's requests, all the same, from the first inline script, in every frame and dedicated worker; a malformed tag is a 400 naming the field.",
  ),
  ext(
    'X/geolocation',
    "`geolocation` (url mode): the position navigator.geolocation reports, granted to the target's own origin only; without it, a page asking for the position is refused at once instead of waiting.",
  ),
  ext('X/mediaType', '`mediaType`: `screen` or `print`; `print` lays the page out with its print style sheet.'),
  ext('X/reducedMotion', '`reducedMotion`: the page sees `prefers-reduced-motion` as `reduce` or `no-preference`.'),
  ext(
    'X/javaScriptEnabled',
    '`javaScriptEnabled`: false renders the page without its scripts (`<noscript>` content shows); the clean-up of banners still works.',
  ),
  ext('X/captureOnTimeout', '`captureOnTimeout`: a page that never settles is captured as it is before the render budget ends, instead of 504.'),
  ext('X/css', "`css`: a stylesheet applied to the page, also when the page's CSP forbids inline styles."),
  ext(
    'X/js',
    "`js`: a script run in the page's main world (so it can call the page's own functions), also under `script-src 'none'`; a returned promise is awaited; a script that throws answers a 4xx with a code of its own, naming the error's message but never quoting the script.",
  ),
  ext(
    'X/actions',
    '`actions`: at most 20, run in order: click, hover, type, press, scrollTo, waitForSelector, waitForHidden, waitForFunction, wait; an action whose element does not exist answers `400 selector_not_found` naming the action.',
  ),
  ext(
    'X/blockResourceTypes',
    '`blockResourceTypes`: requests of those types are refused before they leave the browser; `x-blocked-requests: N` on a capture that blocked anything.',
  ),
  ext('X/blockUrls', '`blockUrls`: requests whose URL matches one of the patterns (`*` wildcards) are refused.'),
  ext(
    'X/clip',
    '`clip`: `{x, y, width, height}` in CSS pixels of the page: the picture is exactly that region (times the scale factor), with or without `fullPage`.',
  ),
  ext('X/delay', '`delay`: milliseconds waited after everything else and before the capture.'),
  ext('X/failOnTargetError', "`failOnTargetError`: when the target's main document answers 4xx/5xx, an error (not billed) instead of a picture of that page."),
  ext(
    'X/fullPageMaxHeight',
    '`fullPageMaxHeight` (fullPage only): a page taller than this many CSS pixels is captured from its top down to exactly that height, and `x-capture-truncated` is `<full height>; reason=height`; a shorter page is captured whole.',
  ),
];
