// The process table inside a container, read from its /proc by a small script run there with the
// container's own node (podman exec): what the sandbox, zombie and securityContext checks look at.
import type { Container } from './engine.ts';

export interface ContainerProc {
  pid: number;
  ppid: number;
  /** R, S, D, Z (zombie: exited, not reaped by its parent), ... */
  state: string;
  uid: number;
  gid: number;
  seccomp: number;
  noNewPrivs: number;
  capEff: string;
  capBnd: string;
  /** Namespace links (net:[...], user:[...]); '' where /proc refused them. */
  net: string;
  user: string;
  args: string[];
  /** Interfaces of its network namespace (/proc/<pid>/net/dev). */
  netdev: string[];
}

// Runs in the container: no imports of ours there, only node's.
const SCRIPT = `
const fs = require('fs');
const out = [];
for (const d of fs.readdirSync('/proc')) {
  if (!/^\\d+$/.test(d)) continue;
  try {
    const st = fs.readFileSync('/proc/' + d + '/stat', 'utf8');
    const rest = st.slice(st.lastIndexOf(')') + 2).split(' ');
    const status = fs.readFileSync('/proc/' + d + '/status', 'utf8');
    const f = (n) => (new RegExp('^' + n + ':\\\\s+(\\\\S+)', 'm').exec(status) || [])[1];
    const link = (n) => { try { return fs.readlinkSync('/proc/' + d + '/ns/' + n); } catch { return ''; } };
    let netdev = [];
    try { netdev = fs.readFileSync('/proc/' + d + '/net/dev', 'utf8').split('\\n').slice(2).map((l) => l.split(':')[0].trim()).filter(Boolean); } catch {}
    out.push({ pid: +d, ppid: +rest[1], state: rest[0], uid: +f('Uid'), gid: +f('Gid'), seccomp: +f('Seccomp'), noNewPrivs: +f('NoNewPrivs'),
      capEff: f('CapEff'), capBnd: f('CapBnd'), net: link('net'), user: link('user'),
      args: fs.readFileSync('/proc/' + d + '/cmdline', 'utf8').split(/[\\0 ]/).filter(Boolean), netdev });
  } catch {}
}
process.stdout.write(JSON.stringify(out.filter((p) => p.pid !== process.pid)));
`;

export async function containerProcs(c: Pick<Container, 'name' | 'exec'>): Promise<ContainerProc[]> {
  const r = await c.exec(['node', '-e', SCRIPT]);
  if (r.code !== 0) throw new Error(`reading /proc in ${c.name}: ${r.stderr.trim().slice(-500)}`);
  return JSON.parse(r.stdout) as ContainerProc[];
}

export const isChromium = (p: ContainerProc) => /chrom/i.test(p.args[0] ?? '');
export const chromiumType = (p: ContainerProc) => p.args.find((a) => a.startsWith('--type='))?.slice(7) ?? 'browser';
export const isServer = (p: ContainerProc) => p.args[0] === 'node' && p.args.includes('server/main.ts');

/** "renderer x4, zygote x2, ..." */
export function describeChromium(ps: ContainerProc[]): string {
  const n = new Map<string, number>();
  for (const p of ps.filter(isChromium)) n.set(chromiumType(p), (n.get(chromiumType(p)) ?? 0) + 1);
  return [...n].map(([t, k]) => `${t} x${k}`).join(', ') || 'none';
}

/** Sends `sig` to a process of the container, as the container's user (no `kill` binary in the image). */
export async function signal(c: Pick<Container, 'name' | 'exec'>, pid: number, sig: NodeJS.Signals): Promise<void> {
  const r = await c.exec(['node', '-e', `process.kill(${pid}, '${sig}')`]);
  if (r.code !== 0) throw new Error(`${sig} to ${pid} in ${c.name}: ${r.stderr.trim().slice(-300)}`);
}
