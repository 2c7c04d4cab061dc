// The options in groups, as the request schema of GET /openapi.json declares them: the body's
// `x-groups` (name, title, description, open) in order, and each field's `x-group`
// (server/request/groups.ts). Each group is a <details>, the essentials open; a field of a group
// this page has never heard of still shows, in a group of its own name.
import { $, el } from './dom.js';

/** @type {Map<string, {box: HTMLDetailsElement, fields: HTMLElement, count: HTMLElement, paths: string[]}>} */
export const groups = new Map();

function group(g) {
  const fields = el('div', { class: 'group-fields' });
  const count = el('span', { class: 'count' });
  const box = el(
    'details',
    { class: 'group', id: `group-${g.name}`, open: g.open === true },
    el('summary', {}, el('span', { class: 'title' }, g.title ?? g.name), count),
    ...(g.description ? [el('p', { class: 'help' }, g.description)] : []),
    fields,
  );
  $('groups').append(box);
  const entry = { box, fields, count, paths: [] };
  groups.set(g.name, entry);
  return entry;
}

/** Makes the groups the schema lists (the loading note goes). */
export function makeGroups(schema) {
  $('groups').replaceChildren();
  for (const g of schema['x-groups'] ?? []) group(g);
}

/** Where a field of this schema goes: its group's box (made when the list did not name it). */
export function groupOf(path, schema) {
  const name = schema['x-group'] ?? 'other';
  const g = groups.get(name) ?? group({ name, title: name, open: true });
  g.paths.push(path);
  return g;
}

/** How many fields of each group are set ("2 set" in its summary), so a folded group still says so. */
export function showCounts(isSet) {
  for (const g of groups.values()) {
    const n = g.paths.filter(isSet).length;
    g.count.textContent = n ? ` · ${n} set` : '';
  }
}

/** Opens the groups holding these fields (a preset or a shared link sets folded ones). */
export function openGroupsOf(paths) {
  for (const g of groups.values()) if (g.paths.some((p) => paths.includes(p))) g.box.open = true;
}
