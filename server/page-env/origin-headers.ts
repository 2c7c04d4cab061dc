// Caller-given headers and cookies for the target's own origin, added to requests as the
// browser makes them (puppeteer request interception), origin by origin:
// - a request whose URL has exactly the target's origin (scheme, host, port) gets them;
// - every other request gets nothing, and loses them if it somehow carries them (a redirect that
//   kept the headers of its first hop): third-party subresources, iframes of other origins, a
//   redirect to another site, the same host on another port or scheme.
// Cookies travel as a Cookie header merged with the page's own cookies, never through the
// browser's cookie jar: the jar matches cookies by host, not origin (any port and, without Secure,
// either scheme), and would hand them to page scripts. Values are never logged.
import type { HTTPRequest, Page } from 'puppeteer-core';

export interface OriginExtras {
  headers?: Record<string, string>;
  cookies?: Array<{ name: string; value: string }>;
}

/** The request headers for `r`: with the extras when it goes to `origin`, without them otherwise. */
export function headersFor(requestUrl: string, current: Record<string, string>, origin: string, extras: OriginExtras): Record<string, string> {
  const own = originOf(requestUrl) === origin;
  const out: Record<string, string> = {};
  const given = new Map(Object.entries(extras.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  for (const [k, v] of Object.entries(current)) {
    const name = k.toLowerCase();
    if (own && given.has(name)) continue; // replaced below
    if (!own && given.get(name) === v) continue; // ours, carried where it must not go
    out[name] = v;
  }
  const ours = (extras.cookies ?? []).map((c) => `${c.name}=${c.value}`);
  const pageCookies = (out.cookie ?? '').split(/;\s*/).filter((c) => c !== '' && !ours.includes(c));
  if (own) {
    for (const [k, v] of given) out[k] = v;
    pageCookies.push(...ours);
  }
  if (pageCookies.length) out.cookie = pageCookies.join('; ');
  else delete out.cookie;
  return out;
}

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Turns on interception for this page (one render's page: nothing else uses it). Returns the detach function. */
export async function sendToOriginOnly(page: Page, targetUrl: string, extras: OriginExtras): Promise<() => void> {
  const origin = originOf(targetUrl);
  if (!origin) throw new Error('sendToOriginOnly: the target must be an http(s) URL');
  const onRequest = (r: HTTPRequest) => {
    // A request another handler already answered, or a page already gone: nothing to do.
    if (r.isInterceptResolutionHandled()) return;
    r.continue({ headers: headersFor(r.url(), r.headers(), origin, extras) }).catch(() => {});
  };
  page.on('request', onRequest);
  await page.setRequestInterception(true);
  return () => void page.off('request', onRequest);
}
