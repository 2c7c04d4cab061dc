// Processes and directories a server leaves behind (shutdown, soak): read from /proc and the file
// system, so that a leaked Chromium or profile directory fails the test.
import { readdirSync, readFileSync } from 'node:fs';

interface ProcInfo {
  pid: number;
  ppid: number;
  cmdline: string;
}

function procs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ');
      out.push({ pid: Number(d), ppid, cmdline });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Chromium processes descending from `root` (default: this test process). */
export function chromiumDescendants(root = process.pid): number[] {
  const all = procs();
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      if (/chrom/i.test(c.cmdline)) found.push(c.pid);
      walk(c.pid);
    }
  };
  walk(root);
  return found;
}

/** A process's CPU niceness (-20..19), from /proc/PID/stat. */
export function niceness(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** Every process whose command line contains `needle` (e.g. a private TMPDIR path). */
export function processesMentioning(needle: string): number[] {
  return procs()
    .filter((p) => p.pid !== process.pid && p.cmdline.includes(needle))
    .map((p) => p.pid);
}

/** Names in `dir` starting with `prefix`. */
export function entries(dir: string, prefix = ''): string[] {
  try {
    return readdirSync(dir).filter((n) => n.startsWith(prefix));
  } catch {
    return [];
  }
}
