// The playground's script (no framework). The option form is built from the request JSON Schema
// that GET /openapi.json serves (server/request/schema.ts), each field in the group it declares
// (groups.js), so a new request field appears here without an edit; the response headers listed
// after a capture are those GET /playground/headers.json names (the response registry,
// server/response/), so a new response fact does too. Errors are shown next to the field their
// message names ("viewport.width must be ...", server/request/validate.ts). The request is also
// shown as code and as a link (panel.js), and a `#request=` link fills the form (request.js). The
// Batch section (batch.js) sends many requests at once, the form's among them.
import { wireBatch } from './batch.js';
import { $, el } from './dom.js';
import { bodySchema, controls, field, requestSchema } from './form.js';
import { groupOf, groups, makeGroups, showCounts } from './groups.js';
import { showCode, wirePanel } from './panel.js';
import { PRESETS } from './presets.js';
import { COMPARE_PATH, SOURCE, bodyOfFragment, bodyText, compareOnly, comparing, fill, last, request, showCompare, showSource, source } from './request.js';
import { showHeaders, showTiming } from './result.js';

const KEY_STORE = 'screenshot-playground-key';
/** @type {Promise<{shown: {name: string, description: string}[], filename: string, timing: string, send: {key: string, type: string}}>} */
const HEADERS = fetch('/playground/headers.json').then((res) => {
  if (!res.ok) throw new Error(`GET /playground/headers.json answered ${res.status}`);
  return res.json();
});

async function buildForm() {
  const schema = await requestSchema();
  makeGroups(schema);
  for (const [k, s] of Object.entries(schema.properties)) (SOURCE.includes(k) ? $('source-fields') : groupOf(k, s).fields).append(field(k, s));
  // The choice of url or html heads the group those two fields declare.
  groups.get(schema.properties.url['x-group'])?.fields.prepend($('source'));
  showSource();
  const compare = await bodySchema(COMPARE_PATH);
  if (compare) {
    for (const [k, s] of Object.entries(compare.properties)) {
      if (k in schema.properties || k === 'baseline') continue;
      compareOnly.add(k);
      $('compare-fields').append(field(k, s));
    }
    groupOf('baseline', compare.properties.baseline).fields.append($('compare'));
    $('compare').hidden = false;
  }
  for (const g of groups.values()) g.box.hidden = g.fields.childElementCount === 0; // a server without comparisons
}

/** Puts the request everywhere it shows: the code, the link, the groups' counts. */
async function refresh({ address = true } = {}) {
  showCounts((path) => controls.get(path)?.read() !== undefined || (path === 'baseline' && comparing()));
  showCode(await HEADERS, { address });
}

function openLink() {
  try {
    const body = bodyOfFragment(location.hash);
    if (!body) return;
    const unknown = fill(body);
    if (unknown.length) showError('form-error', `The link has fields this form does not know, left out: ${unknown.join(', ')}`);
  } catch (e) {
    showError('form-error', `The link does not hold a request: ${e.message}`);
  }
}

function applyPreset(preset) {
  const src = source();
  const value = controls.get(src)?.read();
  fill({ ...(value === undefined ? {} : { [src]: value }), ...preset.body, ...(preset.compare ? { baseline: {} } : {}) }, src);
  $('status').textContent = `${preset.name}: ${Object.keys(preset.body).join(', ')} set.`;
  refresh();
}

// ---------------------------------------------------------------- errors

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
      c.input.closest('details')?.setAttribute('open', ''); // a folded group opens on its error
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

// ---------------------------------------------------------------- capture

let objectUrl;

async function submit(event) {
  event.preventDefault();
  clearErrors();
  const key = $('key').value.trim();
  const { path, body, missing } = request();
  if (missing) return showError('err-baseline', missing);
  $('submit').disabled = true;
  $('status').textContent = path === COMPARE_PATH ? 'Rendering and comparing…' : 'Rendering…';
  const started = performance.now();
  try {
    const names = await HEADERS;
    const headers = { [names.send.type]: 'application/json' };
    if (key) headers[names.send.key] = `Bearer ${key}`;
    const res = await fetch(path, { method: 'POST', headers, body: bodyText(body) });
    if (!res.ok) {
      const err = await res.json().catch(() => ({ error: 'error', message: res.statusText }));
      $('status').textContent = `${res.status} ${err.error}`;
      $('result').hidden = true; // an earlier image next to this error would mislead
      placeError(res.status, err);
      return;
    }
    const blob = await res.blob();
    if (path !== COMPARE_PATH) {
      last.shot = await base64Of(blob);
      if (comparing()) refresh({ address: false }); // the code of a comparison holds the new baseline
    }
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

for (const p of PRESETS) {
  const button = el('button', { type: 'button', class: 'secondary', id: `preset-${p.id}`, title: p.description }, p.name);
  button.addEventListener('click', () => applyPreset(p));
  $('preset-buttons').append(button);
}
$('compare-on').addEventListener('change', showCompare);
for (const r of document.querySelectorAll('input[name=baseline]')) r.addEventListener('change', showCompare);
$('key').value = sessionStorage.getItem(KEY_STORE) ?? '';
$('key').addEventListener('input', () => sessionStorage.setItem(KEY_STORE, $('key').value.trim()));
for (const r of document.querySelectorAll('input[name=source]')) r.addEventListener('change', showSource);
$('form').addEventListener('submit', submit);
// The code follows every keystroke; the address bar each finished edit (a change), not each key.
for (const type of ['input', 'change']) $('form').addEventListener(type, (e) => e.target !== $('key') && refresh({ address: type === 'change' }));
window.addEventListener('hashchange', () => (openLink(), refresh({ address: false })));
wirePanel();
wireBatch(HEADERS, request);
buildForm()
  .then(() => (openLink(), refresh({ address: false })))
  .catch((e) => {
    $('groups').replaceChildren(el('p', { id: 'loading' }, `Could not load the request schema: ${e.message}`));
    $('submit').disabled = true;
  });
HEADERS.catch((e) => {
  showError('form-error', `Could not load the list of response headers: ${e.message}`);
  $('submit').disabled = true;
});
