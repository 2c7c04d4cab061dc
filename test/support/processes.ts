// Processes and directories a server leaves behind (shutdown, soak): read from /proc and the file
// system, so that a leaked Chromium or profile directory fails the test.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/** The processes below `root` (children, their children ...) whose command line contains `needle`. */
export function descendantsMentioning(root: number, needle: string): number[] {
  const all = procs();
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const c of all.filter((p) => p.ppid === pid)) {
      if (c.cmdline.includes(needle)) found.push(c.pid);
      walk(c.pid);
    }
  };
  walk(root);
  return found;
}

/** CPU time (user + system) a process has spent so far, in ms, from /proc/PID/stat (10 ms steps). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
}
/** Linux's USER_HZ: /proc counts CPU time in these. */
const CLOCK_TICKS = 100;

/** The process listening on a TCP port of this host, found from outside: the socket in /proc/net/tcp*, then the process holding it. */
export function listenerOf(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex; state 0A is LISTEN.
      if (f.length > 9 && f[3] === '0A' && parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${d}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${d}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return Number(d);
      } catch {
        // closed while we looked
      }
    }
  }
  return undefined;
}
