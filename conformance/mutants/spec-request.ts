// Mutants that break one rule of the spec about requests and errors (unknown fields, limits,
// waits, private targets, error bodies, keys): each selects the cases tagged with its id.
import { request } from 'undici';
import { screenshotRequestSchema } from '../../server/request/schema.ts';
import { limitCasesOf } from '../limits/cases.ts';
import type { Mutant } from './mutant.ts';
import { body, isShot, jsonOf, jsonResponse, withJson } from './proxy.ts';

/** The known request fields, from the one schema. */
const KNOWN = new Set(Object.keys(screenshotRequestSchema.properties));

export const SPEC_REQUEST_MUTANTS: Mutant[] = [
  {
    id: 'rejects-unknown-fields',
    breaks: '2.1/rule-2',
    description: 'answers 400 to a body with unknown fields',
    cases: { tag: 'rejects-unknown-fields' },
    hooks: body((b) => (Object.keys(b).some((k) => !KNOWN.has(k)) ? { respond: jsonResponse(400, { error: 'bad_request', message: 'unknown field' }) } : b)),
  },
  {
    id: 'viewport-bound-off-by-one',
    breaks: '8/viewport-size',
    description: 'accepts a width or height past 10000 (clamps it to 10000)',
    cases: limitCasesOf('viewport.'),
    hooks: body((b) =>
      b.viewport && typeof b.viewport === 'object'
        ? {
            ...b,
            viewport: {
              ...b.viewport,
              ...(b.viewport.width > 10000 ? { width: 10000, height: 1 } : {}),
              ...(b.viewport.height > 10000 ? { height: 10000, width: 1 } : {}),
            },
          }
        : b,
    ),
  },
  {
    id: 'hideSelectors-limit-off-by-one',
    breaks: '8/hideSelectors',
    description: 'accepts 51 hideSelectors (keeps the first 50)',
    cases: limitCasesOf('hideSelectors'),
    hooks: body((b) => (Array.isArray(b.hideSelectors) && b.hideSelectors.length === 51 ? { ...b, hideSelectors: b.hideSelectors.slice(0, 50) } : b)),
  },
  {
    id: 'html-limit-in-characters',
    breaks: '8/html-size',
    description: 'counts the html limit in characters instead of bytes',
    cases: limitCasesOf('html.'),
    hooks: {
      onRequest(req) {
        const b = isShot(req.path, req.method) ? jsonOf(req) : null;
        if (!b || typeof b.html !== 'string') return req;
        if (b.html.length > 2_000_000) return jsonResponse(413, { error: 'payload_too_large', message: 'html too long' });
        if (Buffer.byteLength(b.html) > 2_000_000) return withJson(req, { ...b, html: '<body style="background:#fff"></body>' });
        return req;
      },
    },
  },
  {
    id: 'ignores-waitForSelector',
    breaks: '4.1/rule-6-wait',
    description: 'ignores waitForSelector',
    cases: { tag: 'ignores-waitForSelector' },
    hooks: body(({ waitForSelector: _w, ...b }) => b),
  },
  {
    id: 'waitUntil-always-load',
    breaks: '4.1/rule-5-networkidle2',
    description: 'treats every waitUntil as load',
    cases: { tag: 'waitUntil-always-load' },
    hooks: body((b) => ({ ...b, waitUntil: 'load' })),
  },
  {
    id: 'connects-before-rejecting',
    breaks: '4.1/rule-8',
    description: 'opens a connection to a loopback target before answering 400',
    cases: { tag: 'connects-before-rejecting' },
    hooks: {
      async onRequest(req) {
        const b = isShot(req.path, req.method) ? jsonOf(req) : null;
        if (b && typeof b.url === 'string' && /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//i.test(b.url)) {
          await request(b.url, { headersTimeout: 1000, bodyTimeout: 1000 }).then(
            (r) => r.body.dump(),
            () => {},
          );
        }
        return req;
      },
    },
  },
  {
    id: 'message-without-field',
    breaks: '2.1/rule-3',
    description: 'answers malformed fields with a message that names no field',
    cases: { tag: 'message-without-field' },
    hooks: { onResponse: (res) => (res.status === 400 ? jsonResponse(400, { error: 'bad_request', message: 'invalid request' }) : res) },
  },
  {
    id: 'error-body-not-json',
    breaks: '7/failure-body',
    description: 'sends failures as text/plain',
    cases: { tag: 'error-body-not-json' },
    hooks: {
      onResponse: (res) => (res.status >= 400 ? { status: res.status, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Bad Request') } : res),
    },
  },
  {
    id: 'ignores-quality',
    breaks: '2.1/quality',
    description: 'ignores quality (always the encoder default)',
    cases: { tag: 'ignores-quality' },
    hooks: body(({ quality: _q, ...b }) => b),
  },
  {
    id: 'accepts-url-and-html',
    breaks: '2.1/rule-1',
    description: 'accepts both url and html (drops html)',
    cases: { tag: 'accepts-url-and-html' },
    hooks: body((b) => (b.url !== undefined && b.html !== undefined ? { ...b, html: undefined } : b)),
  },
  {
    id: 'no-auth-required',
    breaks: '5/bearer',
    description: 'renders requests that carry no key',
    cases: { tag: 'no-auth-required' },
    hooks: {
      onRequest(req) {
        return req.headers.authorization ? req : { ...req, headers: { ...req.headers, authorization: `Bearer ${process.env.MUTANT_FALLBACK_KEY ?? ''}` } };
      },
    },
  },
];
