// What a CSS selector needs to be present in a document: ids, classes and substrings of class/id
// attributes that must occur somewhere for it to match. page/scan.js collects what a document has
// in one pass, so that of hundreds of selectors (CMP rules, the hide list) only the few that could
// match are given to querySelector: a selector list is matched element by element, which on a
// 20,000-element page costs ~100 ms (measured), while the pass costs a few.

export interface SelectorNeeds {
  /** One alternative of a selector list (no top-level comma). */
  sel: string;
  ids: string[];
  classes: string[];
  /** Lower-case substrings of some class or id attribute value. */
  subs: string[];
  /** Custom element names (with a hyphen) that must occur. */
  tags: string[];
}

/** Splits a selector list at top-level commas. */
export function splitSelectorList(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '\\') i++;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(list.slice(start).trim());
  return out.filter(Boolean);
}

/** Necessary conditions of one selector alternative (empty lists when nothing can be said). */
export function selectorNeeds(sel: string): SelectorNeeds {
  const needs: SelectorNeeds = { sel, ids: [], classes: [], subs: [], tags: [] };
  if (sel.includes('\\')) return needs; // escapes: do not guess
  // attribute selectors on class or id with a value give substrings; all others say nothing
  let rest = sel.replace(/\[\s*([\w-]+)\s*([~|^$*]?=)\s*(["']?)(.*?)\3\s*(i|s)?\s*\]/g, (_m, attr: string, _op: string, _q: string, value: string) => {
    if ((attr === 'class' || attr === 'id') && value.trim()) needs.subs.push(value.trim().toLowerCase());
    return ' ';
  });
  rest = rest.replace(/\[[^\]]*\]/g, ' ');
  // functional pseudo-classes (:not, :is, :has, :nth-child ...): their arguments may be negative
  while (/:[\w-]+\(/.test(rest)) {
    const before = rest;
    rest = rest.replace(/:[\w-]+\([^()]*\)/g, ' ');
    if (rest === before) return { sel, ids: [], classes: [], subs: [], tags: [] };
  }
  for (const m of rest.matchAll(/#(-?[_a-zA-Z][\w-]*)/g)) needs.ids.push(m[1]!);
  for (const m of rest.matchAll(/\.(-?[_a-zA-Z][\w-]*)/g)) needs.classes.push(m[1]!);
  // custom element names in type position (start of a compound: after start, space or combinator)
  for (const m of rest.matchAll(/(?:^|[\s>+~])([a-z][a-z0-9]*-[a-z0-9-]*)/gi)) needs.tags.push(m[1]!.toLowerCase());
  return needs;
}

/** Every alternative of every selector list, with its needs. */
export function needsOf(lists: string[]): SelectorNeeds[] {
  return lists.flatMap(splitSelectorList).map(selectorNeeds);
}
