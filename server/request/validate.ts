// Validation and normalisation of the request body against the one schema (spec §2.1 rules 1-3,
// §4.1 rule 7, §8). All field errors of a request are collected into one 400 whose message names
// each field. Messages never quote the submitted values (no echo of request bodies).
import { Ajv, type ErrorObject } from 'ajv';
import { badRequest, ServiceError } from '../errors.ts';
import { screenshotRequestSchema, HTML_MAX_BYTES, DEFAULT_VIEWPORT, type ScreenshotRequest, type ScreenshotRequestBody } from './schema.ts';

const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: false });
ajv.addKeyword({ keyword: 'x-rule', schemaType: 'string' });
const check = ajv.compile(screenshotRequestSchema);

/** Finds the sub-schema at a JSON pointer path of the instance (/viewport/width, /hideSelectors/3). */
function ruleAt(instancePath: string): { field: string; rule: string } {
  const parts = instancePath.split('/').slice(1);
  let schema: any = screenshotRequestSchema;
  const names: string[] = [];
  for (const p of parts) {
    if (schema?.type === 'array') {
      schema = schema.items;
      names[names.length - 1] += `[${p}]`;
    } else {
      schema = schema?.properties?.[p];
      names.push(p);
    }
  }
  return { field: names.join('.') || 'body', rule: schema?.['x-rule'] ?? 'valid' };
}

function messageFor(e: ErrorObject): string {
  if (e.keyword === 'required' && e.instancePath === '/viewport') {
    return `viewport.${(e.params as { missingProperty: string }).missingProperty} is required when viewport is given`;
  }
  if (e.keyword === 'type' && e.instancePath === '') return 'body must be a JSON object';
  const { field, rule } = ruleAt(e.instancePath);
  return `${field} must be ${rule}`;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Validates a parsed JSON body; returns the normalised request or throws one 400/413 naming every bad field. */
export function validateRequest(body: unknown): ScreenshotRequest {
  const errors: string[] = check(body) ? [] : [...new Set((check.errors ?? []).map(messageFor))];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest(errors.join('; '));
  const b = body as ScreenshotRequestBody;
  const hasUrl = b.url !== undefined;
  const hasHtml = b.html !== undefined;
  if (hasUrl === hasHtml) errors.push(hasUrl ? 'exactly one of url and html must be given, not both' : 'exactly one of url and html is required');
  if (typeof b.url === 'string' && !isHttpUrl(b.url)) errors.push('url must be an absolute http or https URL');
  if (b.quality !== undefined && (b.format === undefined || b.format === 'png')) {
    errors.push('quality is only allowed with format "jpeg" or "webp"');
  }
  if (errors.length) throw badRequest(errors.join('; '));
  if (hasHtml && Buffer.byteLength(b.html!, 'utf8') > HTML_MAX_BYTES) {
    throw new ServiceError('payload_too_large', `html must be at most ${HTML_MAX_BYTES} bytes (UTF-8)`);
  }
  return {
    ...(hasUrl ? { url: new URL(b.url!).href } : { html: b.html! }),
    fullPage: b.fullPage ?? false,
    format: b.format ?? 'png',
    ...(b.quality !== undefined ? { quality: Math.round(b.quality) } : {}),
    viewport: b.viewport
      ? { width: b.viewport.width, height: b.viewport.height, deviceScaleFactor: b.viewport.deviceScaleFactor ?? 1 }
      : { ...DEFAULT_VIEWPORT },
    ...(b.selector !== undefined ? { selector: b.selector } : {}),
    omitBackground: b.omitBackground ?? false,
    waitUntil: b.waitUntil ?? 'networkidle2',
    ...(b.waitForSelector !== undefined ? { waitForSelector: b.waitForSelector } : {}),
    blockCookieBanners: b.blockCookieBanners ?? true,
    hideSelectors: b.hideSelectors ?? [],
    blockAds: b.blockAds ?? false,
  };
}
