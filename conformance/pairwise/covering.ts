// Pairwise (strength-2) covering arrays with constraints, by an AETG-style greedy construction
// (Cohen, Dalal, Fredman, Patton, "The AETG System", IEEE TSE 1997): rows are added one at a time;
// each row is the best of CANDIDATES candidates, and a candidate starts from a value that occurs
// in the most uncovered pairs, takes an uncovered pair of it (with what that pair needs to be
// judged: validity.ts witness), then fills the other parameters in a random order, each with the
// value that covers the most uncovered pairs with what is already in the row. Constraints and
// visibility are explicit (validity.ts); every choice keeps the row completable, and a pair no
// valid row can hold where it counts is not possible. Randomness comes from a seeded generator
// only: a seed always gives the same rows.
//
// Ties are broken by the values' `cost` (cheaper fills the positions no pair needs: smaller
// frames, no waits, fields left out), then by the seeded generator.
import { shuffled, Validity, type Constraint, type Pair, type Parameter, type Partial, type Row, type Visibility } from './validity.ts';

export type { Constraint, Pair, Parameter, Row, Value, Visibility } from './validity.ts';

export interface CoveringOptions {
  seed: number;
  constraints?: readonly Constraint[];
  visibility?: readonly Visibility[];
  /** Which pairs must be covered (default all); others may occur but are not counted. */
  required?: (p: Pair, params: readonly Parameter[]) => boolean;
  candidates?: number;
}

export interface CoveringArray {
  rows: Row[];
  /** Pairs required and possible under the constraints. */
  possible: number;
  /** Required pairs no valid row can hold where they count (excluded from `possible`). */
  impossible: Pair[];
}

const CANDIDATES = 8;

/** mulberry32: a small seeded generator (uniform in [0, 1)). */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every pair of values of two different parameters. */
export function allPairs(params: readonly Parameter[]): Pair[] {
  const out: Pair[] = [];
  for (let a = 0; a < params.length; a++) {
    for (let b = a + 1; b < params.length; b++) {
      for (let va = 0; va < params[a]!.values.length; va++) for (let vb = 0; vb < params[b]!.values.length; vb++) out.push({ a, va, b, vb });
    }
  }
  return out;
}

/** The pairs a complete row holds. */
export function pairsOf(row: Row): Pair[] {
  const out: Pair[] = [];
  for (let a = 0; a < row.length; a++) for (let b = a + 1; b < row.length; b++) out.push({ a, va: row[a]!, b, vb: row[b]! });
  return out;
}

/** Pairs as numbers: values get global numbers, a pair (a < b) is g(a:va) * total + g(b:vb). */
class PairIndex {
  readonly offset: number[] = [];
  readonly total: number;
  constructor(params: readonly Parameter[]) {
    let total = 0;
    for (const p of params) {
      this.offset.push(total);
      total += p.values.length;
    }
    this.total = total;
  }
  key(a: number, va: number, b: number, vb: number): number {
    return a < b ? (this.offset[a]! + va) * this.total + this.offset[b]! + vb : (this.offset[b]! + vb) * this.total + this.offset[a]! + va;
  }
  of = (p: Pair) => this.key(p.a, p.va, p.b, p.vb);
  value = (p: number, v: number) => this.offset[p]! + v;
  param = (g: number) => this.offset.filter((x) => x <= g).length - 1;
}

/** The required pairs that some valid row holds where they count, and those none does. */
function possiblePairs(params: readonly Parameter[], validity: Validity, o: Pick<CoveringOptions, 'required'>): { possible: Pair[]; impossible: Pair[] } {
  const possible: Pair[] = [];
  const impossible: Pair[] = [];
  for (const p of allPairs(params)) {
    if (o.required && !o.required(p, params)) continue;
    (validity.witness(p) ? possible : impossible).push(p);
  }
  return { possible, impossible };
}

export function coveringArray(params: readonly Parameter[], o: CoveringOptions): CoveringArray {
  const validity = new Validity(params, o.constraints ?? [], o.visibility ?? []);
  const rng = seeded(o.seed);
  const n = params.length;
  const ix = new PairIndex(params);
  const { possible, impossible } = possiblePairs(params, validity, o);
  const uncovered = new Map(possible.map((p) => [ix.of(p), p]));
  /** For each global value, how many uncovered pairs hold it. */
  const count = new Array<number>(ix.total).fill(0);
  for (const p of possible) {
    count[ix.value(p.a, p.va)]!++;
    count[ix.value(p.b, p.vb)]!++;
  }
  const gainOf = (row: Row) => pairsOf(row).filter((q) => uncovered.has(ix.of(q)) && validity.counts(row, q));
  const rows: Row[] = [];

  const candidate = (): { row: Row; gain: number; cost: number } => {
    // the value in the most uncovered pairs (ties: seeded), one uncovered pair of it, and what that pair needs to count
    const most = Math.max(...count);
    const top = count.flatMap((c, g) => (c === most ? [g] : []));
    const g = top[Math.floor(rng() * top.length)]!;
    const a = ix.param(g);
    const va = g - ix.offset[a]!;
    const partners: Pair[] = [];
    for (let b = 0; b < n; b++)
      if (b !== a)
        for (let vb = 0; vb < params[b]!.values.length; vb++) {
          const p = uncovered.get(ix.key(a, va, b, vb));
          if (p) partners.push(p);
        }
    const row: Partial = validity.witness(partners[Math.floor(rng() * partners.length)]!, rng)!;
    for (const p of shuffled(
      [...Array(n).keys()].filter((i) => row[i] === undefined),
      rng,
    )) {
      let best: number[] = [];
      let bestGain = -1;
      let bestCost = Infinity;
      for (let v = 0; v < params[p]!.values.length; v++) {
        row[p] = v;
        const ok = validity.completable(row);
        row[p] = undefined;
        if (!ok) continue;
        let gain = 0;
        for (let q = 0; q < n; q++) if (q !== p && row[q] !== undefined && uncovered.has(ix.key(p, v, q, row[q]!))) gain++;
        const cost = params[p]!.values[v]!.cost ?? 0;
        if (gain > bestGain || (gain === bestGain && cost < bestCost)) [best, bestGain, bestCost] = [[v], gain, cost];
        else if (gain === bestGain && cost === bestCost) best.push(v);
      }
      row[p] = best[Math.floor(rng() * best.length)]!; // never empty: the row was completable before
    }
    const full = row as Row;
    return { row: full, gain: gainOf(full).length, cost: full.reduce((sum, v, p) => sum + (params[p]!.values[v]!.cost ?? 0), 0) };
  };

  while (uncovered.size > 0) {
    let best = candidate();
    for (let i = 1; i < (o.candidates ?? CANDIDATES); i++) {
      const c = candidate();
      if (c.gain > best.gain || (c.gain === best.gain && c.cost < best.cost)) best = c;
    }
    rows.push(best.row);
    for (const q of gainOf(best.row)) {
      uncovered.delete(ix.of(q));
      count[ix.value(q.a, q.va)]!--;
      count[ix.value(q.b, q.vb)]!--;
    }
  }
  return { rows, possible: possible.length, impossible };
}

/** How many of the required, possible pairs the rows hold where they count (rows may come from anywhere: an export). */
export function pairCoverage(
  params: readonly Parameter[],
  rows: readonly Row[],
  o: Pick<CoveringOptions, 'constraints' | 'visibility' | 'required'>,
): { covered: number; possible: number; missing: Pair[]; impossible: Pair[] } {
  const validity = new Validity(params, o.constraints ?? [], o.visibility ?? []);
  const ix = new PairIndex(params);
  const held = new Set(
    rows.flatMap((r) =>
      pairsOf(r)
        .filter((q) => validity.counts(r, q))
        .map(ix.of),
    ),
  );
  const { possible, impossible } = possiblePairs(params, validity, o);
  const missing = possible.filter((p) => !held.has(ix.of(p)));
  return { covered: possible.length - missing.length, possible: possible.length, missing, impossible };
}
