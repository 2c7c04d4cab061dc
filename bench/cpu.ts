// CPU time of this process and every process under it (the Chromium browsers it launched and their
// renderers, GPU and utility processes), from /proc/<pid>/stat: utime + stime of each live process,
// plus cutime + cstime (children that ended and were reaped: renderers of closed contexts, closed
// browsers), so that work done by a process that exits between two readings is still counted.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux (getconf CLK_TCK)

interface Stat {
  pid: number;
  ppid: number;
  own: number;
  reaped: number;
}

function stats(): Stat[] {
  const out: Stat[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ').map(Number); // f[0] is field 3 (state)
      out.push({ pid: Number(d), ppid: f[1]!, own: (f[11]! + f[12]!) * TICK_MS, reaped: (f[13]! + f[14]!) * TICK_MS });
    } catch {
      // ended while we looked
    }
  }
  return out;
}

export interface CpuReading {
  /** This Node process alone (server and bench client: they share the process). */
  nodeMs: number;
  /** Every descendant, live or reaped (Chromium). */
  childrenMs: number;
}

export function cpuNow(root = process.pid): CpuReading {
  const all = stats();
  const kids = new Map<number, Stat[]>();
  for (const s of all) kids.set(s.ppid, [...(kids.get(s.ppid) ?? []), s]);
  const self = all.find((s) => s.pid === root);
  let childrenMs = self?.reaped ?? 0;
  const walk = (pid: number) => {
    for (const c of kids.get(pid) ?? []) {
      childrenMs += c.own + c.reaped;
      walk(c.pid);
    }
  };
  walk(root);
  return { nodeMs: self?.own ?? 0, childrenMs };
}

/** CPU ms per capture (node, chromium, total) spent while `work` made `captures` captures. */
export async function cpuPerCapture<T>(work: () => Promise<T>, captures: (r: T) => number) {
  const a = cpuNow();
  const result = await work();
  const b = cpuNow();
  const n = Math.max(1, captures(result));
  const node = (b.nodeMs - a.nodeMs) / n;
  const chromium = (b.childrenMs - a.childrenMs) / n;
  return { result, cpu: { nodeMs: node, chromiumMs: chromium, totalMs: node + chromium, captures: n } };
}
