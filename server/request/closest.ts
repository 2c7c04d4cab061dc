// The names of a long list closest to what a caller typed, for a 400 that helps (an unknown device
// preset: "closest: ..."). The caller's text is only compared, never quoted back.

/** Lower case, letters and digits only: "iphone15pro" is "iPhone 15 Pro". */
const fold = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** Levenshtein distance, two rows. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The `count` names nearest to `typed` (ties keep the list's order). */
export function closest(typed: string, names: readonly string[], count = 3): string[] {
  const t = fold(typed.slice(0, 200)); // a name is short: a long value cannot be near one, and need not cost much
  return names
    .map((name, i) => ({ name, i, d: distance(t, fold(name)) }))
    .sort((x, y) => x.d - y.d || x.i - y.i)
    .slice(0, count)
    .map((x) => x.name);
}
