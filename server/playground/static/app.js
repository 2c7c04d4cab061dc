// The playground's script (no framework). The option form is built from the request JSON Schema
// that GET /openapi.json serves (server/request/schema.ts), so a new request field appears here
// without an edit; the response headers listed after a capture are those GET
// /playground/headers.json names (the response registry, server/response/), so a new response
// fact does too. Errors are shown next to the field their message names ("viewport.width must
// be ...", server/request/validate.ts).
import { $, el } from './dom.js';
import { bodySchema, controls, field, requestSchema } from './form.js';
import { showHeaders, showTiming } from './result.js';

const KEY_STORE = 'screenshot-playground-key';
const SOURCE = ['url', 'html'];
/** @type {Promise<{shown: {name: string, description: string}[], filename: string, timing: string, send: {key: string, type: string}}>} */
const HEADERS = fetch('/playground/headers.json').then((res) => {
  if (!res.ok) throw new Error(`GET /playground/headers.json answered ${res.status}`);
  return res.json();
});

/** The comparison's own fields (those of POST /v1/compare that a capture request has not, but the baseline, chosen above them). */
const COMPARE_PATH = '/v1/compare';
const compareOnly = new Set();

async function buildForm() {
  const schema = await requestSchema();
  $('loading').remove();
  for (const [k, s] of Object.entries(schema.properties)) (SOURCE.includes(k) ? $('source-fields') : $('option-fields')).append(field(k, s));
  showSource();
  const compare = await bodySchema(COMPARE_PATH);
  if (!compare) return; // a server without comparisons
  for (const [k, s] of Object.entries(compare.properties)) {
    if (k in schema.properties || k === 'baseline') continue;
    compareOnly.add(k);
    $('compare-fields').append(field(k, s));
  }
  $('compare').hidden = false;
}

const comparing = () => !$('compare').hidden && $('compare-on').checked;
/** The last screenshot taken here, in base64: the baseline of "the previous screenshot". */
let lastShot;

function showCompare() {
  $('compare-options').hidden = !$('compare-on').checked;
  $('field-baseline-url').hidden = document.querySelector('input[name=baseline]:checked').value !== 'url';
  $('submit').textContent = comparing() ? 'Compare' : 'Take screenshot';
}

/** The compare request: the capture's options, the comparison's, and the baseline. */
function compareBody(capture) {
  if (document.querySelector('input[name=baseline]:checked').value === 'url') {
    const options = { ...capture, url: $('baseline-url').value.trim() };
    delete options.html;
    return { ...capture, baseline: { request: options } };
  }
  if (!lastShot) throw new Error('take a screenshot first: it is the baseline');
  return { ...capture, baseline: { image: lastShot } };
}

function source() {
  return document.querySelector('input[name=source]:checked').value;
}

function showSource() {
  for (const k of SOURCE) {
    const c = controls.get(k);
    if (c) c.input.closest('.field').hidden = k !== source();
  }
}

// ---------------------------------------------------------------- request

function body() {
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

function clearErrors() {
  for (const e of document.querySelectorAll('.error')) {
    e.hidden = true;
    e.textContent = '';
  }
  for (const e of document.querySelectorAll('[aria-invalid]')) e.removeAttribute('aria-invalid');
}

function showError(target, text, input) {
  const box = $(target);
  box.textContent = box.textContent ? `${box.textContent} ${text}` : text;
  box.hidden = false;
  input?.setAttribute('aria-invalid', 'true');
}

/** Puts each part of an error message next to the field it names; the rest goes under the button. */
function placeError(status, err) {
  if (err.error === 'unauthorized' || err.error === 'insufficient_credits') return showError('err-key', err.message, $('key'));
  let first;
  for (const part of String(err.message ?? '').split('; ')) {
    const path = /^([A-Za-z]+(?:\.[A-Za-z]+)*)/.exec(part)?.[1];
    const c = path && controls.get(path);
    if (path?.startsWith('baseline')) {
      showError('err-baseline', part);
    } else if (c) {
      showError(`err-${path}`, part, c.input);
      first ??= c.input;
    } else if (/\b(url|html)\b/.test(part)) {
      showError('err-source', part);
      first ??= controls.get(source())?.input;
    } else {
      showError('form-error', `${status} ${err.error ?? ''}: ${part}`);
    }
  }
  first?.focus();
}

let objectUrl;

async function submit(event) {
  event.preventDefault();
  clearErrors();
  const key = $('key').value.trim();
  $('submit').disabled = true;
  $('status').textContent = comparing() ? 'Rendering and comparing…' : 'Rendering…';
  const started = performance.now();
  try {
    const names = await HEADERS;
    const headers = { [names.send.type]: 'application/json' };
    if (key) headers[names.send.key] = `Bearer ${key}`;
    let target = '/v1/screenshot';
    let payload = body();
    if (comparing()) {
      try {
        payload = compareBody(payload);
      } catch (e) {
        showError('err-baseline', e.message);
        return;
      }
      target = COMPARE_PATH;
    }
    const res = await fetch(target, { method: 'POST', headers, body: JSON.stringify(payload) });
    if (!res.ok) {
      const err = await res.json().catch(() => ({ error: 'error', message: res.statusText }));
      $('status').textContent = `${res.status} ${err.error}`;
      $('result').hidden = true; // an earlier image next to this error would mislead
      placeError(res.status, err);
      return;
    }
    const blob = await res.blob();
    if (target !== COMPARE_PATH) lastShot = await base64Of(blob);
    if (objectUrl) URL.revokeObjectURL(objectUrl);
    objectUrl = URL.createObjectURL(blob);
    const img = $('shot');
    img.src = objectUrl;
    await img.decode();
    const name = /filename="([^"]+)"/.exec(res.headers.get(names.filename) ?? '')?.[1] ?? 'screenshot';
    $('caption').replaceChildren(
      `${blob.type} · ${img.naturalWidth} × ${img.naturalHeight} px · ${blob.size.toLocaleString('en')} bytes · `,
      el('a', { href: objectUrl, download: name }, `download ${name}`),
    );
    showHeaders(res, names.shown);
    showTiming(res.headers.get(names.timing));
    $('result').hidden = false;
    $('status').textContent = `Done in ${Math.round(performance.now() - started)} ms`;
  } catch (e) {
    $('status').textContent = '';
    showError('form-error', `The request failed: ${e.message}`);
  } finally {
    $('submit').disabled = false;
  }
}

function base64Of(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

// ---------------------------------------------------------------- start

$('compare-on').addEventListener('change', showCompare);
for (const r of document.querySelectorAll('input[name=baseline]')) r.addEventListener('change', showCompare);
$('key').value = sessionStorage.getItem(KEY_STORE) ?? '';
$('key').addEventListener('input', () => sessionStorage.setItem(KEY_STORE, $('key').value.trim()));
for (const r of document.querySelectorAll('input[name=source]')) r.addEventListener('change', showSource);
$('form').addEventListener('submit', submit);
buildForm().catch((e) => {
  $('loading').textContent = `Could not load the request schema: ${e.message}`;
  $('submit').disabled = true;
});
HEADERS.catch((e) => {
  showError('form-error', `Could not load the list of response headers: ${e.message}`);
  $('submit').disabled = true;
});
