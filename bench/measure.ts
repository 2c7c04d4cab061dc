// Load generators and statistics for the bench: open loop (requests at a fixed rate whatever the
// latency), closed loop (C clients each sending the next request when the last one returns), and
// peak memory of this process plus its Chromium processes.
import { readdirSync, readFileSync } from 'node:fs';

export interface Sample {
  ms: number;
  ok: boolean;
  /** Which workload page, when a run cycles through several. */
  tag?: string;
}

/** Medians of the successful samples by tag. */
export function byTag(samples: Sample[]): Record<string, number> {
  const groups = new Map<string, number[]>();
  for (const s of samples) if (s.ok && s.tag) groups.set(s.tag, [...(groups.get(s.tag) ?? []), s.ms]);
  return Object.fromEntries([...groups].map(([k, v]) => [k, median(v)]));
}

export const median = (xs: number[]) => pct(xs, 50);
export function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export async function openLoop(once: () => Promise<Sample>, perSecond: number, count: number) {
  const gap = 1000 / perSecond;
  const start = performance.now();
  const runs: Promise<Sample>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + i * gap;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    runs.push(once().catch((): Sample => ({ ms: NaN, ok: false })));
  }
  const done = await Promise.all(runs);
  return { ms: done.filter((d) => d.ok).map((d) => d.ms), errors: done.filter((d) => !d.ok).length, samples: done };
}

export async function closedLoop(once: () => Promise<Sample>, concurrency: number, count: number) {
  let next = 0;
  const ms: number[] = [];
  const samples: Sample[] = [];
  let errors = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const s: Sample = await once().catch(() => ({ ms: NaN, ok: false }));
        samples.push(s);
        if (s.ok) ms.push(s.ms);
        else errors++;
      }
    }),
  );
  const secs = (performance.now() - start) / 1000;
  return { ms, errors, rps: ms.length / secs, samples };
}

function rssOf(pid: string): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Sum of RSS (MiB) of the Chromium processes under this one (every browser the bench measures is
 * launched by it): not every process with our profile prefix, which on a shared machine includes
 * other test runs' browsers.
 */
function chromiumRss(): number {
  let sum = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes('chromium') && isDescendant(pid)) sum += rssOf(pid);
    } catch {
      /* gone */
    }
  }
  return sum;
}

function isDescendant(pid: string): boolean {
  for (let p = pid, i = 0; p && p !== '1' && i < 20; i++) {
    if (p === String(process.pid)) return true;
    try {
      p = /PPid:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? '';
    } catch {
      return false;
    }
  }
  return false;
}

export async function peakMemoryDuring<T>(work: () => Promise<T>) {
  let peak = 0;
  let nodeMiB = 0;
  let chromiumMiB = 0;
  const sample = () => {
    const n = process.memoryUsage().rss / 2 ** 20;
    const c = chromiumRss();
    if (n + c > peak) [peak, nodeMiB, chromiumMiB] = [n + c, n, c];
  };
  const timer = setInterval(sample, 50);
  try {
    const result = await work();
    sample();
    return { result, peakMiB: peak, nodeMiB, chromiumMiB };
  } finally {
    clearInterval(timer);
  }
}
