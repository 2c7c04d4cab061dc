// The request the form stands for: where it goes and its JSON body (read from the controls), the
// same object the button sends, the code snippets show and a share link carries; and the way back,
// a body (from a link or a preset) written into the form.
import { $ } from './dom.js';
import { controls } from './form.js';
import { openGroupsOf } from './groups.js';

export const CAPTURE_PATH = '/v1/screenshot';
export const COMPARE_PATH = '/v1/compare';
export const SOURCE = ['url', 'html'];
/** The comparison's own fields (those of POST /v1/compare that a capture request has not, but the baseline, chosen above them). */
export const compareOnly = new Set();
/** The last screenshot taken here, in base64: the baseline of "the previous screenshot". */
export const last = { shot: undefined };
export const NO_BASELINE = 'take a screenshot first: it is the baseline';

const checked = (name) => document.querySelector(`input[name=${name}]:checked`).value;
export const source = () => checked('source');
export const comparing = () => !$('compare').hidden && $('compare-on').checked;

export function showSource() {
  for (const k of SOURCE) {
    const c = controls.get(k);
    if (c) c.input.closest('.field').hidden = k !== source();
  }
}

export function showCompare() {
  $('compare-options').hidden = !$('compare-on').checked;
  $('field-baseline-url').hidden = checked('baseline') !== 'url';
  $('submit').textContent = comparing() ? 'Compare' : 'Take screenshot';
  $('add-to-batch').hidden = comparing(); // a batch holds captures, never comparisons
}

/** The capture's fields as the form has them (defaults left out), and the comparison's when comparing. */
function fields() {
  const out = {};
  for (const [path, c] of controls) {
    if (path.includes('.')) continue; // nested values are read by their object
    if (SOURCE.includes(path) && path !== source()) continue;
    if (compareOnly.has(path) && !comparing()) continue;
    const v = c.read();
    if (v !== undefined) out[path] = v;
  }
  return out;
}

/**
 * The request: `path`, `body`, and `missing` when it cannot be sent yet (a comparison with the
 * previous screenshot before any was taken). `{link: true}` leaves the baseline picture out: a
 * link carries options, never a picture.
 */
export function request({ link = false } = {}) {
  const body = fields();
  if (!comparing()) return { path: CAPTURE_PATH, body };
  if (checked('baseline') === 'url') {
    const options = Object.fromEntries(Object.entries(body).filter(([k]) => !compareOnly.has(k) && k !== 'html'));
    return { path: COMPARE_PATH, body: { ...body, baseline: { request: { ...options, url: $('baseline-url').value.trim() } } } };
  }
  if (link) return { path: COMPARE_PATH, body: { ...body, baseline: {} } };
  return { path: COMPARE_PATH, body: { ...body, baseline: { image: last.shot ?? '' } }, missing: last.shot ? undefined : NO_BASELINE };
}

/** The body as sent: the very text the code snippets hold. */
export const bodyText = (body) => JSON.stringify(body, null, 2);

// ---------------------------------------------------------------- links

const toBase64url = (text) => {
  let bin = '';
  for (const b of new TextEncoder().encode(text)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
const fromBase64url = (s) => new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)));

/** `#request=<base64url of the JSON body>`: never the key, which is not part of the body. */
export const linkFragment = () => `#request=${toBase64url(JSON.stringify(request({ link: true }).body))}`;

/** The body a `#request=` fragment carries, or undefined (no such fragment); throws when it is not JSON. */
export function bodyOfFragment(hash) {
  const m = /^#request=([A-Za-z0-9_-]*)$/.exec(hash);
  if (!m) return undefined;
  const body = JSON.parse(fromBase64url(m[1]));
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('the request in the link is not a JSON object');
  return body;
}

/** Writes a body into the form: every field it has, the default for every other (the key is kept); `src`: url or html. */
export function fill(body, src = typeof body.html === 'string' && body.url === undefined ? 'html' : 'url') {
  const { baseline, ...rest } = body;
  for (const r of document.querySelectorAll('input[name=source]')) r.checked = r.value === src;
  for (const [path, c] of controls) if (!path.includes('.')) c.write(rest[path]);
  const on = baseline !== undefined && !$('compare').hidden;
  $('compare-on').checked = on;
  const byUrl = typeof baseline?.request?.url === 'string';
  for (const r of document.querySelectorAll('input[name=baseline]')) r.checked = r.value === (byUrl ? 'url' : 'image');
  $('baseline-url').value = byUrl ? baseline.request.url : '';
  showSource();
  showCompare();
  openGroupsOf([...Object.keys(rest), ...(on ? ['baseline'] : [])]);
  return Object.keys(rest).filter((k) => !controls.has(k)); // fields this form has not: reported, not lost silently
}
