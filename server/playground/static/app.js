// The playground's script (no framework). The option form is built from the request JSON Schema
// that GET /openapi.json serves (server/request/schema.ts), so a new request field appears here
// without an edit; the response headers listed after a capture are those GET
// /playground/headers.json names (the response registry, server/response/), so a new response
// fact does too. Errors are shown next to the field their message names ("viewport.width must
// be ...", server/request/validate.ts).
const $ = (id) => document.getElementById(id);
const KEY_STORE = 'screenshot-playground-key';
/** Presentation hints only (the schema says what a field is; this says how big its box is). */
const MULTILINE = new Set(['html', 'css', 'js']);
const SOURCE = ['url', 'html'];
/** @type {Promise<{shown: {name: string, description: string}[], filename: string, timing: string, send: {key: string, type: string}}>} */
const HEADERS = fetch('/playground/headers.json').then((res) => {
  if (!res.ok) throw new Error(`GET /playground/headers.json answered ${res.status}`);
  return res.json();
});

/** @type {Map<string, {read: () => unknown, input: HTMLElement, error: HTMLElement}>} */
const controls = new Map();

// ---------------------------------------------------------------- schema -> form

function resolve(doc, node) {
  while (node && node.$ref) node = node.$ref.split('/').slice(1).reduce((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return node;
}

async function requestSchema() {
  const res = await fetch('/openapi.json');
  if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
  const doc = await res.json();
  const body = resolve(doc, doc.paths['/v1/screenshot'].post.requestBody);
  return resolve(doc, body.content['application/json'].schema);
}

const idFor = (path) => `f-${path.replace(/\./g, '-')}`;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : String(v));
  e.append(...children);
  return e;
}

/** One labelled control for a schema property; returns its wrapper and registers how to read it. */
function field(path, schema, fallback) {
  const id = idFor(path);
  const name = path.split('.').pop();
  const def = schema.default ?? fallback;
  const help = el('p', { class: 'help', id: `${id}-help` }, schema.description ?? '');
  const error = el('p', { class: 'error', id: `err-${path}`, hidden: true });
  const describedBy = `${id}-help err-${path}`;
  let input;
  let read;
  if (schema.type === 'object' && schema.properties) {
    const box = el('fieldset', { class: 'nested', id, 'aria-describedby': describedBy }, el('legend', {}, name));
    box.append(help);
    for (const [k, s] of Object.entries(schema.properties)) box.append(field(`${path}.${k}`, s, def?.[k]));
    box.append(error);
    // Sent only when a nested value is set; then the object's defaults fill the rest (width and height are required together).
    read = () => {
      const set = Object.keys(schema.properties).map((k) => [k, controls.get(`${path}.${k}`).read()]).filter(([, v]) => v !== undefined);
      return set.length ? { ...(def ?? {}), ...Object.fromEntries(set) } : undefined;
    };
    controls.set(path, { read, input: box, error });
    return box;
  }
  if (schema.type === 'boolean') {
    input = el('input', { type: 'checkbox', id, checked: def === true, 'aria-describedby': describedBy });
    read = () => (input.checked === (def ?? false) ? undefined : input.checked);
    const wrap = el('div', { class: 'field check' }, input, el('label', { for: id }, name), help, error);
    controls.set(path, { read, input, error });
    return wrap;
  }
  if (Array.isArray(schema.enum)) {
    // No default in the schema (colorScheme): an empty first choice sends nothing.
    const none = def === undefined ? [el('option', { value: '', selected: true }, '(default)')] : [];
    input = el('select', { id, 'aria-describedby': describedBy }, ...none, ...schema.enum.map((v) => el('option', { value: v, selected: v === def }, String(v))));
    read = () => (input.value === (def ?? '') ? undefined : input.value);
  } else if (schema.type === 'number' || schema.type === 'integer') {
    input = el('input', { type: 'number', id, min: schema.minimum, max: schema.maximum, step: 'any', placeholder: def, inputmode: 'decimal', 'aria-describedby': describedBy });
    read = () => (input.value.trim() === '' ? undefined : Number(input.value));
  } else if (schema.type === 'object') {
    // A map of strings (headers): one "Name: value" per line.
    input = el('textarea', { id, rows: 2, placeholder: 'Name: value (one per line)', spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => {
      const lines = input.value.split('\n').map((l) => l.trim()).filter(Boolean);
      return lines.length ? Object.fromEntries(lines.map((l) => [l.split(':')[0].trim(), l.slice(l.indexOf(':') + 1).trim()])) : undefined;
    };
  } else if (schema.type === 'array' && schema.items?.type === 'object' && !(schema.items.properties?.name && schema.items.properties?.value)) {
    // Objects of their own shape (actions): one JSON object per line; a line that is not JSON is
    // sent as it is, and the server's message says what it must be.
    input = el('textarea', { id, rows: 3, placeholder: '{"click": "#menu"} (one JSON object per line)', spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => {
      const lines = input.value.split('\n').map((l) => l.trim()).filter(Boolean);
      const parse = (l) => {
        try {
          return JSON.parse(l);
        } catch {
          return l;
        }
      };
      return lines.length ? lines.map(parse) : undefined;
    };
  } else if (schema.type === 'array' && schema.items?.type === 'object') {
    // Name/value objects (cookies): one "name=value" per line.
    input = el('textarea', { id, rows: 2, placeholder: 'name=value (one per line)', spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => {
      const lines = input.value.split('\n').map((l) => l.trim()).filter(Boolean);
      return lines.length ? lines.map((l) => ({ name: l.split('=')[0], value: l.slice(l.indexOf('=') + 1) })) : undefined;
    };
  } else if (schema.type === 'array') {
    input = el('textarea', { id, rows: 2, placeholder: 'one per line', spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => {
      const lines = input.value.split('\n').map((l) => l.trim()).filter(Boolean);
      return lines.length ? lines : undefined;
    };
  } else if (MULTILINE.has(name)) {
    input = el('textarea', { id, rows: 8, spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => (input.value === '' ? undefined : input.value);
  } else {
    input = el('input', { type: schema.format === 'uri' ? 'url' : 'text', id, spellcheck: 'false', placeholder: schema.format === 'uri' ? 'https://example.com' : def, 'aria-describedby': describedBy });
    read = () => (input.value.trim() === '' ? undefined : input.value.trim());
  }
  controls.set(path, { read, input, error });
  return el('div', { class: 'field', id: `field-${id}` }, el('label', { for: id }, name), input, help, error);
}

async function buildForm() {
  const schema = await requestSchema();
  $('loading').remove();
  for (const [k, s] of Object.entries(schema.properties)) (SOURCE.includes(k) ? $('source-fields') : $('option-fields')).append(field(k, s));
  showSource();
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
    if (c) {
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

function parseTiming(header) {
  return (header ?? '')
    .split(/,(?=\s*[A-Za-z0-9_-]+\s*(?:;|,|$))/)
    .map((entry) => {
      const [name, ...params] = entry.trim().split(';');
      const p = Object.fromEntries(params.map((x) => x.trim().split('=')).map(([k, v]) => [k, (v ?? '').replace(/^"|"$/g, '')]));
      return { name, dur: Number(p.dur ?? 0), desc: p.desc || name };
    })
    .filter((t) => t.name);
}

/** Server-Timing as a waterfall: the steps run one after another, so each bar starts where the last ended. */
function showTiming(header) {
  const rows = parseTiming(header);
  const total = rows.reduce((s, t) => s + t.dur, 0) || 1;
  const tbody = $('timing').tBodies[0];
  tbody.replaceChildren();
  let start = 0;
  for (const t of rows) {
    const bar = el('span', { class: 'bar' });
    bar.style.marginLeft = `${(start / total) * 100}%`;
    bar.style.width = `${Math.max((t.dur / total) * 100, 0.5)}%`;
    tbody.append(el('tr', {}, el('th', { scope: 'row' }, t.desc), el('td', { class: 'ms' }, t.dur.toFixed(1)), el('td', { class: 'track' }, bar)));
    start += t.dur;
  }
  $('timing').hidden = rows.length === 0;
  $('timing-title').hidden = rows.length === 0;
}

function showHeaders(res, shown) {
  const dl = $('headers');
  dl.replaceChildren();
  for (const h of shown) {
    const v = res.headers.get(h.name);
    if (v !== null) dl.append(el('dt', { title: h.description }, h.name), el('dd', {}, v));
  }
}

let objectUrl;

async function submit(event) {
  event.preventDefault();
  clearErrors();
  const key = $('key').value.trim();
  $('submit').disabled = true;
  $('status').textContent = 'Rendering…';
  const started = performance.now();
  try {
    const names = await HEADERS;
    const headers = { [names.send.type]: 'application/json' };
    if (key) headers[names.send.key] = `Bearer ${key}`;
    const res = await fetch('/v1/screenshot', { method: 'POST', headers, body: JSON.stringify(body()) });
    if (!res.ok) {
      const err = await res.json().catch(() => ({ error: 'error', message: res.statusText }));
      $('status').textContent = `${res.status} ${err.error}`;
      $('result').hidden = true; // an earlier image next to this error would mislead
      placeError(res.status, err);
      return;
    }
    const blob = await res.blob();
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

// ---------------------------------------------------------------- start

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
