// What the implementation says about itself, for the JSON report: the Chromium version where it
// reports one (a /healthz, /health or /version JSON field mentioning chrome/chromium/browser, or a
// response header such as x-chromium-version). Best effort; never fails the run.
import { request } from 'undici';

function findBrowser(v: unknown, depth = 0): string | undefined {
  if (!v || typeof v !== 'object' || depth > 3) return undefined;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (/chrom|browser|engine/i.test(k) && (typeof x === 'string' || typeof x === 'number')) return String(x);
    const inner = findBrowser(x, depth + 1);
    if (inner) return inner;
  }
  return undefined;
}

export async function targetInfo(baseUrl: string, apiKey: string): Promise<{ chromium?: string; info?: Record<string, unknown> }> {
  const base = baseUrl.replace(/\/+$/, '');
  for (const p of ['/healthz', '/health', '/version', '/v1/version']) {
    try {
      const res = await request(base + p, { headers: { authorization: `Bearer ${apiKey}` }, headersTimeout: 3000, bodyTimeout: 3000 });
      const header = res.headers['x-chromium-version'] ?? res.headers['x-browser-version'];
      const text = await res.body.text();
      if (res.statusCode !== 200) continue;
      let info: Record<string, unknown> | undefined;
      try {
        info = JSON.parse(text) as Record<string, unknown>;
      } catch {
        /* not JSON */
      }
      const chromium = (typeof header === 'string' ? header : undefined) ?? findBrowser(info);
      return { ...(chromium ? { chromium } : {}), ...(info ? { info: { path: p, ...info } } : {}) };
    } catch {
      /* try the next one */
    }
  }
  return {};
}
