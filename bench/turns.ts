// Contenders measured in turns by a client in its own process (bench/client.ts): the plan it is
// given, what it reports, and the figures drawn from it. A contender's median is the median of its
// rounds' medians; its p95 is over all its captures (each round has a few); a ratio between two
// contenders is also given round by round (the median of the rounds' ratios), which cancels a
// drift slower than a round.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, pct } from './measure.ts';

export type Contender =
  | { name: string; kind: 'http'; url: string; headers: Record<string, string>; body: string; perRound?: number }
  /** The reused-page floor, driven by the client itself (no server: bench/client.ts). */
  | { name: string; kind: 'reused-page'; executablePath: string; html: string; perRound?: number };

export interface ClientPlan {
  contenders: Contender[];
  rounds: number;
  /** Captures of each contender in a round (a contender may say its own). */
  perRound: number;
  /** Idle time after each capture: the slots are prepared again, as between requests at 2/s. */
  gapMs: number;
  /** Captures of each contender before the counted rounds. */
  warmup: number;
}

export interface TurnSample {
  name: string;
  round: number;
  ms: number;
  ok: boolean;
  status: number;
  /** The answer's Server-Timing steps (ms by name), where it has one. */
  steps?: Record<string, number>;
}

export interface ClientReport {
  samples: TurnSample[];
  error?: string;
}

export interface ContenderFigures {
  /** Median of the rounds' medians. */
  medianMs: number;
  p95Ms: number;
  captures: number;
  errors: number;
  /** Statuses other than 200 seen (an error's cause at a glance). */
  statuses: number[];
  /** Median of each Server-Timing step over the captures that answered it, and of what is outside them (the total minus their sum). */
  stepsMedianMs?: Record<string, number>;
}

const CLIENT = fileURLToPath(new URL('./client.ts', import.meta.url));

/** Runs the plan in a child process (this process's `--import tsx` included) and returns its samples. */
export function measureInTurns(plan: ClientPlan): Promise<TurnSample[]> {
  return new Promise((resolve, reject) => {
    const child = fork(CLIENT, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let report: ClientReport | undefined;
    child.once('message', (m) => (report = m as ClientReport));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (report?.error) reject(new Error(`bench client: ${report.error}`));
      else if (!report) reject(new Error(`bench client exited (${code}) without a report`));
      else resolve(report.samples);
    });
    child.send(plan);
  });
}

const roundMedians = (samples: TurnSample[], name: string): Map<number, number> => {
  const by = new Map<number, number[]>();
  for (const s of samples) if (s.name === name && s.ok) by.set(s.round, [...(by.get(s.round) ?? []), s.ms]);
  return new Map([...by].map(([r, ms]) => [r, median(ms)]));
};

export function figuresOf(samples: TurnSample[], name: string): ContenderFigures {
  const mine = samples.filter((s) => s.name === name);
  const ok = mine.filter((s) => s.ok).map((s) => s.ms);
  return {
    medianMs: median([...roundMedians(samples, name).values()]),
    p95Ms: pct(ok, 95),
    captures: ok.length,
    errors: mine.length - ok.length,
    statuses: [...new Set(mine.filter((s) => s.status !== 200).map((s) => s.status))],
    ...stepMedians(mine.filter((s) => s.ok)),
  };
}

/** The median over rounds of a's round median over b's, in the rounds where both have one. */
export function roundRatio(samples: TurnSample[], a: string, b: string): number {
  const ra = roundMedians(samples, a);
  const rb = roundMedians(samples, b);
  return median([...ra].filter(([r]) => rb.has(r)).map(([r, m]) => m / rb.get(r)!));
}

function stepMedians(ok: TurnSample[]): { stepsMedianMs?: Record<string, number> } {
  const timed = ok.filter((s) => s.steps);
  if (!timed.length) return {};
  const names = [...new Set(timed.flatMap((s) => Object.keys(s.steps!)))];
  const of = (name: string) => median(timed.map((s) => s.steps![name] ?? 0));
  const outside = median(timed.map((s) => s.ms - Object.values(s.steps!).reduce((a, b) => a + b, 0)));
  return { stepsMedianMs: { ...Object.fromEntries(names.map((n) => [n, of(n)])), outside } };
}
