// What rows the covering arrays (covering.ts) may hold and where a pair counts:
// - constraints: values that cannot meet in one valid case, each with its reason;
// - visibility: a value whose effect shows only in some rows (a hidden element's strip must be in
//   the captured frame; fullPage does nothing next to a selector). A pair holding such a value
//   counts as covered only in a row where the effect shows, so that "covered" means "judged by
//   the oracle", not just "sent".
// Rows are searched by backtracking over small domains, with memoised answers.

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

/** Parameter name -> value id, for the parameters a rule reads. */
export type Values = Readonly<Record<string, string>>;

export interface Constraint {
  /** Why these values cannot meet. */
  why: string;
  /** The parameters it reads; it is only asked once all of them have a value. */
  params: readonly string[];
  /** true when the values may meet in one case. */
  allows(v: Values): boolean;
}

export interface Visibility {
  /** The value whose effect this is about. */
  param: string;
  value: string;
  /** Why it may not show. */
  why: string;
  /** The other parameters `shows` reads. */
  reads: readonly string[];
  /** The effect shows in a row holding these values (its own included). */
  shows(v: Values): boolean;
  /** Pairs with these parameters count wherever the value is: the pair itself is what is judged (fullPage with a selector is ignored, visibly). */
  except?: readonly string[];
}

/** A pair: parameter a (lower index) with value va, parameter b with value vb. */
export interface Pair {
  a: number;
  va: number;
  b: number;
  vb: number;
}

export class Validity {
  private readonly index: Map<string, number>;
  /** For each parameter, the constraints that read it. */
  private readonly reading: Constraint[][];
  private readonly memo = new Map<string, boolean>();
  private readonly shown = new Map<string, boolean>();
  constructor(
    readonly params: readonly Parameter[],
    private readonly constraints: readonly Constraint[],
    private readonly visibility: readonly Visibility[] = [],
  ) {
    this.index = new Map(params.map((p, i) => [p.name, i]));
    const known = (n: string, what: string) => {
      if (!this.index.has(n)) throw new Error(`${what} reads unknown parameter ${n}`);
    };
    for (const c of constraints) for (const n of c.params) known(n, `constraint "${c.why}"`);
    for (const r of visibility) for (const n of [r.param, ...r.reads]) known(n, `visibility "${r.why}"`);
    this.reading = params.map((p) => constraints.filter((c) => c.params.includes(p.name)));
  }

  private values(names: readonly string[], row: Partial): Record<string, string> | null {
    const v: Record<string, string> = {};
    for (const n of names) {
      const i = this.index.get(n)!;
      if (row[i] === undefined) return null;
      v[n] = this.params[i]!.values[row[i]!]!.id;
    }
    return v;
  }

  private holds(c: Constraint, row: Partial): boolean {
    const v = this.values(c.params, row);
    return v === null || c.allows(v);
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

  /** The visibility rules a pair's side (p: v, next to parameter `other`) is subject to. */
  private rulesFor(p: number, v: number, other: number): Visibility[] {
    const name = this.params[p]!.name;
    const id = this.params[p]!.values[v]!.id;
    const otherName = this.params[other]!.name;
    return this.visibility.filter((r) => r.param === name && r.value === id && !r.except?.includes(otherName));
  }

  /** Whether the rule's effect shows with the values of `row` (all its reads assigned), or null when some are not. */
  private shows(r: Visibility, row: Partial): boolean | null {
    const v = this.values([r.param, ...r.reads], row);
    if (v === null) return null;
    const key = `${r.param}=${r.value}|${JSON.stringify(v)}`;
    let ok = this.shown.get(key);
    if (ok === undefined) {
      ok = r.shows(v);
      this.shown.set(key, ok);
    }
    return ok;
  }

  /** Whether a complete row's pair counts: each value's effect shows there. */
  counts(row: Row, p: Pair): boolean {
    return [...this.rulesFor(p.a, p.va, p.b), ...this.rulesFor(p.b, p.vb, p.a)].every((r) => this.shows(r, row) === true);
  }

  /**
   * A completable partial row holding the pair, with values for the parameters its visibility
   * rules read such that the pair counts; null when there is none. `rng` orders the search (any
   * witness); without it, the first one.
   */
  witness(p: Pair, rng?: () => number): Partial | null {
    const rules = [...this.rulesFor(p.a, p.va, p.b), ...this.rulesFor(p.b, p.vb, p.a)];
    const reads = [...new Set(rules.flatMap((r) => r.reads.map((n) => this.index.get(n)!)))].filter((i) => i !== p.a && i !== p.b);
    const row: Partial = new Array(this.params.length).fill(undefined);
    row[p.a] = p.va;
    row[p.b] = p.vb;
    const search = (k: number): boolean => {
      if (!this.consistent(row)) return false;
      if (k === reads.length) return rules.every((r) => this.shows(r, row) === true) && this.completable(row);
      const i = reads[k]!;
      const order = rng ? shuffled([...this.params[i]!.values.keys()], rng) : [...this.params[i]!.values.keys()];
      for (const v of order) {
        row[i] = v;
        if (search(k + 1)) return true;
      }
      row[i] = undefined;
      return false;
    };
    return search(0) ? row : null;
  }
}

/** Fisher-Yates with the given generator. */
export function shuffled<T>(items: T[], rng: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
