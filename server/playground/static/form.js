// The option form, built from the request JSON Schema that GET /openapi.json serves
// (server/request/schema.ts): a new request field appears in the form without an edit. Each control
// can be read (the value to send, or undefined for the default) and written (a share link, a preset).
import { el } from './dom.js';

/** Presentation hints only (the schema says what a field is; this says how big its box is). */
const MULTILINE = new Set(['html', 'css', 'js']);
/** @type {Map<string, {read: () => unknown, write: (v: unknown) => void, input: HTMLElement, error: HTMLElement}>} */
export const controls = new Map();

function resolve(doc, node) {
  while (node && node.$ref)
    node = node.$ref
      .split('/')
      .slice(1)
      .reduce((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return node;
}

const DOC = fetch('/openapi.json').then((res) => {
  if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
  return res.json();
});

export async function bodySchema(path) {
  const doc = await DOC;
  const op = doc.paths[path]?.post;
  if (!op) return undefined;
  return resolve(doc, resolve(doc, op.requestBody).content['application/json'].schema);
}

export const requestSchema = () => bodySchema('/v1/screenshot');

const idFor = (path) => `f-${path.replace(/\./g, '-')}`;

/** One labelled control for a schema property; returns its wrapper and registers how to read it. */
export function field(path, schema, fallback) {
  const id = idFor(path);
  const name = path.split('.').pop();
  const def = schema.default ?? fallback;
  const help = el('p', { class: 'help', id: `${id}-help` }, schema.description ?? '');
  const error = el('p', { class: 'error', id: `err-${path}`, hidden: true });
  const describedBy = `${id}-help err-${path}`;
  let input;
  let read;
  let write;
  const lines = (list) => void (input.value = list.join('\n'));
  if (schema.type === 'object' && schema.properties) {
    const box = el('fieldset', { class: 'nested', id, 'aria-describedby': describedBy }, el('legend', {}, name));
    box.append(help);
    for (const [k, s] of Object.entries(schema.properties)) box.append(field(`${path}.${k}`, s, def?.[k]));
    box.append(error);
    // Sent only when a nested value is set; then the object's defaults fill the rest (width and height are required together).
    read = () => {
      const set = Object.keys(schema.properties)
        .map((k) => [k, controls.get(`${path}.${k}`).read()])
        .filter(([, v]) => v !== undefined);
      return set.length ? { ...(def ?? {}), ...Object.fromEntries(set) } : undefined;
    };
    const write = (v) => Object.keys(schema.properties).forEach((k) => controls.get(`${path}.${k}`).write(v?.[k]));
    controls.set(path, { read, write, input: box, error });
    return box;
  }
  if (schema.type === 'boolean') {
    input = el('input', { type: 'checkbox', id, checked: def === true, 'aria-describedby': describedBy });
    read = () => (input.checked === (def ?? false) ? undefined : input.checked);
    const write = (v) => void (input.checked = v ?? def ?? false);
    const wrap = el('div', { class: 'field check' }, input, el('label', { for: id }, name), help, error);
    controls.set(path, { read, write, input, error });
    return wrap;
  }
  if (Array.isArray(schema.enum)) {
    // No default in the schema (colorScheme): an empty first choice sends nothing.
    const none = def === undefined ? [el('option', { value: '', selected: true }, '(default)')] : [];
    input = el(
      'select',
      { id, 'aria-describedby': describedBy },
      ...none,
      ...schema.enum.map((v) => el('option', { value: v, selected: v === def }, String(v))),
    );
    read = () => (input.value === (def ?? '') ? undefined : input.value);
    write = (v) => void (input.value = String(v ?? def ?? ''));
  } else if (schema.type === 'number' || schema.type === 'integer') {
    input = el('input', {
      type: 'number',
      id,
      min: schema.minimum,
      max: schema.maximum,
      step: 'any',
      placeholder: def,
      inputmode: 'decimal',
      'aria-describedby': describedBy,
    });
    read = () => (input.value.trim() === '' ? undefined : Number(input.value));
  } else if (schema.type === 'object') {
    // A map of strings (headers): one "Name: value" per line.
    input = el('textarea', { id, rows: 2, placeholder: 'Name: value (one per line)', spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => {
      const lines = input.value
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      return lines.length ? Object.fromEntries(lines.map((l) => [l.split(':')[0].trim(), l.slice(l.indexOf(':') + 1).trim()])) : undefined;
    };
    write = (v) => lines(Object.entries(v ?? {}).map(([k, x]) => `${k}: ${x}`));
  } else if (schema.type === 'array' && schema.items?.type === 'object' && !(schema.items.properties?.name && schema.items.properties?.value)) {
    // Objects of their own shape (actions): one JSON object per line; a line that is not JSON is
    // sent as it is, and the server's message says what it must be.
    input = el('textarea', { id, rows: 3, placeholder: '{"click": "#menu"} (one JSON object per line)', spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => {
      const lines = input.value
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      const parse = (l) => {
        try {
          return JSON.parse(l);
        } catch {
          return l;
        }
      };
      return lines.length ? lines.map(parse) : undefined;
    };
    write = (v) => lines((v ?? []).map((x) => (typeof x === 'string' ? x : JSON.stringify(x))));
  } else if (schema.type === 'array' && schema.items?.type === 'object') {
    // Name/value objects (cookies): one "name=value" per line.
    input = el('textarea', { id, rows: 2, placeholder: 'name=value (one per line)', spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => {
      const lines = input.value
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      return lines.length ? lines.map((l) => ({ name: l.split('=')[0], value: l.slice(l.indexOf('=') + 1) })) : undefined;
    };
    write = (v) => lines((v ?? []).map((c) => `${c.name}=${c.value}`));
  } else if (schema.type === 'array') {
    input = el('textarea', { id, rows: 2, placeholder: 'one per line', spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => {
      const lines = input.value
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      return lines.length ? lines : undefined;
    };
    write = (v) => lines(v ?? []);
  } else if (MULTILINE.has(name)) {
    input = el('textarea', { id, rows: 8, spellcheck: 'false', 'aria-describedby': describedBy });
    read = () => (input.value === '' ? undefined : input.value);
  } else {
    input = el('input', {
      type: schema.format === 'uri' ? 'url' : 'text',
      id,
      spellcheck: 'false',
      placeholder: schema.format === 'uri' ? 'https://example.com' : def,
      'aria-describedby': describedBy,
    });
    read = () => (input.value.trim() === '' ? undefined : input.value.trim());
  }
  write ??= (v) => void (input.value = v === undefined ? '' : String(v));
  controls.set(path, { read, write, input, error });
  return el('div', { class: 'field', id: `field-${id}` }, el('label', { for: id }, name), input, help, error);
}
