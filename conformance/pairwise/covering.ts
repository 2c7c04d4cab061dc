// Pairwise (strength-2) covering arrays with constraints, by an AETG-style greedy construction
// (Cohen, Dalal, Fredman, Patton, "The AETG System", IEEE TSE 1997): rows are added one at a time;
// each row is the best of CANDIDATES candidates, and a candidate starts from a value that occurs
// in the most uncovered pairs, takes an uncovered pair of it, then fills the other parameters in
// a random order, each with the value that covers the most uncovered pairs with what is already
// in the row. Constraints are explicit predicates over a (partial) row; every choice keeps the row
// completable (a backtracking search), and a pair no valid row can hold is not counted as
// possible. Randomness comes from a seeded generator only, so a seed always gives the same rows.
//
// Ties are broken by the values' `cost` (cheaper fills the positions no pair needs: smaller
// frames, no waits, fields left out), then by the seeded generator.

export interface Value {
  id: string;
  /** Relative cost of a case holding this value (default 0): ties go to the cheaper value. */
  cost?: number;
}

export interface Parameter {
  name: string;
  values: readonly Value[];
}

/** A row: for each parameter (by index), the index of its value. */
export type Row = number[];
/** A partial row: undefined where no value is chosen yet. */
export type Partial = Array<number | undefined>;

export interface Constraint {
  /** Why these values cannot meet (cited in the generated cases' documentation). */
  why: string;
  /** The parameters it reads; it is only asked once all of them have a value. */
  params: readonly string[];
  /** true when the values (parameter name -> value id) may meet in one case. */
  allows(v: Readonly<Record<string, string>>): boolean;
}

/** A pair: parameter a (lower index) with value va, parameter b with value vb. */
export interface Pair {
  a: number;
  va: number;
  b: number;
  vb: number;
}

export interface CoveringOptions {
  seed: number;
  constraints?: readonly Constraint[];
  /** Which pairs must be covered (default all); others may occur but are not counted. */
  required?: (p: Pair, params: readonly Parameter[]) => boolean;
  candidates?: number;
}

export interface CoveringArray {
  params: readonly Parameter[];
  rows: Row[];
  /** Pairs required and possible under the constraints. */
  possible: number;
  /** Required pairs no valid row can hold (excluded from `possible`). */
  impossible: Pair[];
}

const CANDIDATES = 16;

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

export const pairKey = (p: Pair): string => `${p.a}:${p.va}|${p.b}:${p.vb}`;

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

/** Constraint checking over partial rows, and completion by backtracking. */
export class Validity {
  private readonly index: Map<string, number>;
  /** For each parameter, the constraints that read it. */
  private readonly reading: Constraint[][];
  private readonly memo = new Map<string, boolean>();
  constructor(
    readonly params: readonly Parameter[],
    private readonly constraints: readonly Constraint[],
  ) {
    this.index = new Map(params.map((p, i) => [p.name, i]));
    for (const c of constraints) for (const n of c.params) if (!this.index.has(n)) throw new Error(`constraint "${c.why}" reads unknown parameter ${n}`);
    this.reading = params.map((p) => constraints.filter((c) => c.params.includes(p.name)));
  }

  private holds(c: Constraint, row: Partial): boolean {
    const v: Record<string, string> = {};
    for (const n of c.params) {
      const i = this.index.get(n)!;
      if (row[i] === undefined) return true;
      v[n] = this.params[i]!.values[row[i]!]!.id;
    }
    return c.allows(v);
  }

  /** No constraint whose parameters all have values is broken. */
  consistent(row: Partial): boolean {
    return this.constraints.every((c) => this.holds(c, row));
  }

  /** Some complete valid row extends this one. */
  completable(row: Partial): boolean {
    const key = row.map((v) => (v === undefined ? '_' : v)).join(',');
    let ok = this.memo.get(key);
    if (ok === undefined) {
      ok = this.consistent(row) && this.extend([...row]);
      this.memo.set(key, ok);
    }
    return ok;
  }

  /** Backtracking over the free parameters of a consistent row; only the constraints a new value touches are asked. */
  private extend(row: Partial): boolean {
    const free = row.findIndex((v) => v === undefined);
    if (free < 0) return true;
    for (let v = 0; v < this.params[free]!.values.length; v++) {
      row[free] = v;
      if (this.reading[free]!.every((c) => this.holds(c, row)) && this.extend(row)) return true;
    }
    row[free] = undefined;
    return false;
  }

  /** The first constraint a complete row breaks, or null. */
  broken(row: Row): Constraint | null {
    return this.constraints.find((c) => !this.holds(c, row)) ?? null;
  }
}

const costOf = (params: readonly Parameter[], p: number, v: number) => params[p]!.values[v]!.cost ?? 0;

export function coveringArray(params: readonly Parameter[], o: CoveringOptions): CoveringArray {
  const validity = new Validity(params, o.constraints ?? []);
  const rng = seeded(o.seed);
  const n = params.length;
  // Values get global numbers; a pair (a:va, b:vb), a < b, is the number g(a:va) * total + g(b:vb).
  const offset: number[] = [];
  let total = 0;
  for (const p of params) {
    offset.push(total);
    total += p.values.length;
  }
  const key = (a: number, va: number, b: number, vb: number) => (a < b ? (offset[a]! + va) * total + offset[b]! + vb : (offset[b]! + vb) * total + offset[a]! + va);
  const uncovered = new Set<number>();
  /** For each global value, how many uncovered pairs hold it. */
  const count = new Array<number>(total).fill(0);
  const impossible: Pair[] = [];
  for (const p of allPairs(params)) {
    if (o.required && !o.required(p, params)) continue;
    const row: Partial = new Array(n).fill(undefined);
    row[p.a] = p.va;
    row[p.b] = p.vb;
    if (!validity.completable(row)) {
      impossible.push(p);
      continue;
    }
    uncovered.add(key(p.a, p.va, p.b, p.vb));
    count[offset[p.a]! + p.va]!++;
    count[offset[p.b]! + p.vb]!++;
  }
  const possible = uncovered.size;
  const paramOf = (g: number) => offset.filter((x) => x <= g).length - 1;
  const rows: Row[] = [];

  const candidate = (): { row: Row; gain: number; cost: number } => {
    // the value in the most uncovered pairs (ties: seeded), and one uncovered pair of it
    const most = Math.max(...count);
    const top = count.flatMap((c, g) => (c === most ? [g] : []));
    const g = top[Math.floor(rng() * top.length)]!;
    const a = paramOf(g);
    const va = g - offset[a]!;
    const partners: Array<[number, number]> = [];
    for (let b = 0; b < n; b++) if (b !== a) for (let vb = 0; vb < params[b]!.values.length; vb++) if (uncovered.has(key(a, va, b, vb))) partners.push([b, vb]);
    const [b, vb] = partners[Math.floor(rng() * partners.length)]!;
    const row: Partial = new Array(n).fill(undefined);
    row[a] = va;
    row[b] = vb;
    const order = [...Array(n).keys()].filter((i) => row[i] === undefined);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const p of order) {
      let best: number[] = [];
      let bestGain = -1;
      let bestCost = Infinity;
      for (let v = 0; v < params[p]!.values.length; v++) {
        row[p] = v;
        const ok = validity.completable(row);
        row[p] = undefined;
        if (!ok) continue;
        let gain = 0;
        for (let q = 0; q < n; q++) if (q !== p && row[q] !== undefined && uncovered.has(key(p, v, q, row[q]!))) gain++;
        const cost = costOf(params, p, v);
        if (gain > bestGain || (gain === bestGain && cost < bestCost)) [best, bestGain, bestCost] = [[v], gain, cost];
        else if (gain === bestGain && cost === bestCost) best.push(v);
      }
      if (best.length === 0) throw new Error('no valid value: the starting pair was checked completable, so this cannot happen');
      row[p] = best[Math.floor(rng() * best.length)]!;
    }
    const full = row as Row;
    const gain = pairsOf(full).filter((q) => uncovered.has(key(q.a, q.va, q.b, q.vb))).length;
    return { row: full, gain, cost: full.reduce((sum, v, p) => sum + costOf(params, p, v), 0) };
  };

  while (uncovered.size > 0) {
    let best = candidate();
    for (let i = 1; i < (o.candidates ?? CANDIDATES); i++) {
      const c = candidate();
      if (c.gain > best.gain || (c.gain === best.gain && c.cost < best.cost)) best = c;
    }
    rows.push(best.row);
    for (const q of pairsOf(best.row)) {
      if (!uncovered.delete(key(q.a, q.va, q.b, q.vb))) continue;
      count[offset[q.a]! + q.va]!--;
      count[offset[q.b]! + q.vb]!--;
    }
  }
  return { params, rows, possible, impossible };
}

/** How many of the required, possible pairs the rows hold (rows may come from anywhere: an export). */
export function pairCoverage(params: readonly Parameter[], rows: readonly Row[], o: Pick<CoveringOptions, 'constraints' | 'required'>): { covered: number; possible: number; missing: Pair[] } {
  const validity = new Validity(params, o.constraints ?? []);
  const held = new Set(rows.flatMap((r) => pairsOf(r).map(pairKey)));
  const missing: Pair[] = [];
  let possible = 0;
  for (const p of allPairs(params)) {
    if (o.required && !o.required(p, params)) continue;
    const row: Partial = new Array(params.length).fill(undefined);
    row[p.a] = p.va;
    row[p.b] = p.vb;
    if (!validity.completable(row)) continue;
    possible++;
    if (!held.has(pairKey(p))) missing.push(p);
  }
  return { covered: possible - missing.length, possible, missing };
}
