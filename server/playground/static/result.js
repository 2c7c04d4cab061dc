// What the playground shows after a capture: the response headers the registry lists, and
// Server-Timing as a waterfall.
import { $, el } from './dom.js';

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
export function showTiming(header) {
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

export function showHeaders(res, shown) {
  const dl = $('headers');
  dl.replaceChildren();
  for (const h of shown) {
    const v = res.headers.get(h.name);
    if (v !== null) dl.append(el('dt', { title: h.description }, h.name), el('dd', {}, v));
  }
}
