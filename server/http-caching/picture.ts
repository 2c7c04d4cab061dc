// What identifies the picture a request produces, for the result cache's key: every
// validated field that can change the image (the extensions included: deterministic, headers,
// cookies, and the emulation fields as resolved: a device preset's viewport and userAgent, one
// spelling of timezone and locale), and nothing else. `cacheTtl` is left out: it says how old a
// capture may be, not what it shows, so a request with cacheTtl 60 reuses a capture stored by one
// with cacheTtl 300 while it is young enough. Header and cookie values are secrets of the caller
// (sessions, tokens): they enter the key only as one SHA-256, never in clear, so that no cache
// storage (memory today, a database tomorrow) holds them; so do css, js and actions (scripts, and
// text typed into forms, such as a login). `captureOnTimeout` counts as false: a capture it cut
// short is never stored (server/service.ts), so every stored capture is of a page that settled,
// the same picture with or without the option.
import { createHash } from 'node:crypto';
import type { ScreenshotRequest } from '../kinds/request.ts';

const digest = (v: unknown) => `sha256:${createHash('sha256').update(JSON.stringify(v)).digest('base64url')}`;

export function pictureOf(req: ScreenshotRequest): ScreenshotRequest {
  const { cacheTtl: _reuse, headers, cookies, css, js, actions, ...picture } = req;
  const out: ScreenshotRequest = { ...picture, captureOnTimeout: false }; // as if not asked: see above
  if (css !== undefined) out.css = digest(css);
  if (js !== undefined) out.js = digest(js);
  if (actions !== undefined) out.actions = [{ waitForFunction: digest(actions) }];
  // Header names are case-insensitive: X-Foo and x-foo send the same request.
  if (headers)
    out.headers = {
      digest: digest(
        Object.entries(headers)
          .map(([k, v]) => [k.toLowerCase(), v])
          .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)),
      ),
    };
  if (cookies) out.cookies = [{ name: 'digest', value: digest(cookies.map((c) => [c.name, c.value])) }];
  return out;
}
