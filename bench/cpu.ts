// CPU time of this process and every process under it (the Chromium browsers it launched and their
// renderers, GPU and utility processes), from /proc/<pid>/stat: utime + stime of each live process,
// plus cutime + cstime (children that ended and were reaped: renderers of closed contexts, closed
// browsers), so that work done by a process that exits between two readings is still counted.
//
// Broken down by where it ran: this Node process's main thread (JavaScript: HTTP, puppeteer's
// protocol traffic, the service) and its other threads (libuv's pool, where sharp encodes; V8's
// GC and compiler helpers), and Chromium by process type (its --type= flag): the browser process
// (DevTools, navigation, the screenshot's encode), renderers (parse, style, layout, paint, image
// decode; renderers that ended are counted where they were reaped: the zygote), the GPU/viz
// process (raster, compositing, the frame a capture copies), the network service, other utilities.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux (getconf CLK_TCK)

export const PROCESS_KINDS = ['nodeMain', 'nodeThreads', 'browser', 'renderer', 'gpu', 'network', 'utility', 'other'] as const;
export type ProcessKind = (typeof PROCESS_KINDS)[number];
export type ByKind = Record<ProcessKind, number>;
/** Chromium's processes (not `other`: tsx's esbuild and shells are the bench's, not the service's). */
const CHROMIUM_KINDS: ProcessKind[] = ['browser', 'renderer', 'gpu', 'network', 'utility'];

interface Stat {
  pid: number;
  ppid: number;
  own: number;
  reaped: number;
}

function parseStat(s: string): { ppid: number; own: number; reaped: number } {
  const f = s
    .slice(s.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number); // f[0] is field 3 (state)
  return { ppid: f[1]!, own: (f[11]! + f[12]!) * TICK_MS, reaped: (f[13]! + f[14]!) * TICK_MS };
}

function stats(): Stat[] {
  const out: Stat[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      out.push({ pid: Number(d), ...parseStat(readFileSync(`/proc/${d}/stat`, 'utf8')) });
    } catch {
      // ended while we looked
    }
  }
  return out;
}

/** Kinds by pid, so that a process that ends between two reads keeps the kind it was seen with. */
const kinds = new Map<number, ProcessKind>();

/** Which kind of Chromium process (or not Chromium: tsx's esbuild, a shell). */
function kindOf(pid: number): ProcessKind {
  const known = kinds.get(pid);
  if (known) return known;
  let cmd: string;
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    cmd = '';
  }
  // Gone, or a zombie (its command line is empty until it is reaped): renderers of closed contexts
  // are the processes that come and go.
  if (!cmd) return 'renderer';
  const kind = classify(cmd.split(/[\0 ]/)); // Chromium's children rewrite their title: one string, spaces between
  kinds.set(pid, kind);
  return kind;
}

function classify(argv: string[]): ProcessKind {
  if (!/chrom/i.test(argv[0] ?? '') && !argv.some((a) => a.startsWith('--type='))) return 'other';
  const type = argv.find((a) => a.startsWith('--type='))?.slice(7);
  if (!type) return 'browser';
  if (type === 'renderer' || type === 'zygote') return 'renderer'; // the zygote reaps ended renderers
  if (type === 'gpu-process') return 'gpu';
  if (type === 'utility') return argv.some((a) => a.includes('NetworkService')) ? 'network' : 'utility';
  return 'utility';
}

/** This process's main thread and the sum of its other threads, in ms. */
function nodeThreads(root: number): { main: number; threads: number } {
  let main = 0;
  let threads = 0;
  for (const t of readdirSync(`/proc/${root}/task`)) {
    try {
      const { own } = parseStat(readFileSync(`/proc/${root}/task/${t}/stat`, 'utf8'));
      if (Number(t) === root) main = own;
      else threads += own;
    } catch {
      // thread ended
    }
  }
  return { main, threads };
}

export interface CpuReading {
  /** This Node process alone (server and bench client: they share the process). */
  nodeMs: number;
  /** Every Chromium process under this one, live or reaped. */
  childrenMs: number;
  byKind: ByKind;
}

const zero = (): ByKind => Object.fromEntries(PROCESS_KINDS.map((k) => [k, 0])) as ByKind;

export function cpuNow(root = process.pid): CpuReading {
  const all = stats();
  const kids = new Map<number, Stat[]>();
  for (const s of all) kids.set(s.ppid, [...(kids.get(s.ppid) ?? []), s]);
  const self = all.find((s) => s.pid === root);
  const byKind = zero();
  // Reaped children of this process: browsers closed since it started (their whole tree).
  byKind.browser += self?.reaped ?? 0;
  const walk = (pid: number) => {
    for (const c of kids.get(pid) ?? []) {
      byKind[kindOf(c.pid)] += c.own + c.reaped;
      walk(c.pid);
    }
  };
  walk(root);
  const t = root === process.pid ? nodeThreads(root) : { main: self?.own ?? 0, threads: 0 };
  // The threads' sum can lag the process's own figure by a tick: the process figure is the total.
  byKind.nodeMain = t.main;
  byKind.nodeThreads = (self?.own ?? 0) - t.main;
  const childrenMs = CHROMIUM_KINDS.reduce((a, k) => a + byKind[k], 0);
  return { nodeMs: self?.own ?? 0, childrenMs, byKind };
}

export interface CpuPerCapture {
  nodeMs: number;
  chromiumMs: number;
  totalMs: number;
  captures: number;
  /** Per capture, by where it ran (see PROCESS_KINDS). */
  byKind: ByKind;
}

/** CPU ms per capture (node, chromium, total, by process kind) spent while `work` made `captures` captures. */
export async function cpuPerCapture<T>(work: () => Promise<T>, captures: (r: T) => number): Promise<{ result: T; cpu: CpuPerCapture }> {
  const a = cpuNow();
  const result = await work();
  const b = cpuNow();
  const n = Math.max(1, captures(result));
  const node = (b.nodeMs - a.nodeMs) / n;
  const byKind = zero();
  for (const k of PROCESS_KINDS) byKind[k] = (b.byKind[k] - a.byKind[k]) / n;
  const chromium = (b.childrenMs - a.childrenMs) / n;
  return { result, cpu: { nodeMs: node, chromiumMs: chromium, totalMs: node + chromium, captures: n, byKind } };
}

/** "node 12+30, browser 40, renderer 80, gpu 20, network 3": a breakdown on one line. */
export function formatByKind(b: ByKind): string {
  const names: Record<ProcessKind, string> = {
    nodeMain: 'node main',
    nodeThreads: 'node threads',
    browser: 'browser',
    renderer: 'renderer',
    gpu: 'gpu',
    network: 'network',
    utility: 'utility',
    other: 'other',
  };
  return PROCESS_KINDS.filter((k) => Math.round(b[k]) !== 0)
    .map((k) => `${names[k]} ${b[k].toFixed(0)}`)
    .join(', ');
}
