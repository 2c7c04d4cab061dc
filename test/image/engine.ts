// The container engine as the image tests drive it: podman (scripts/setup-podman.sh; its settings
// reach podman through CONTAINERS_CONF, inherited from the environment), every container on the
// host's network (the tests' fixtures, PostgreSQL and HAProxy are on loopback), each one removed
// at the end whatever happened (removeAll).
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `podman args...` to its end (stdin from `input`), never throwing; bounded by `timeoutMs`. */
export function podman(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn('podman', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    p.stdin.end(opts.input ?? '');
  });
}

/** As podman(), throwing with its stderr when it fails; returns stdout. */
export async function must(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<string> {
  const r = await podman(args, opts);
  if (r.code !== 0) throw new Error(`podman ${args.slice(0, 3).join(' ')} ... exited ${r.code}: ${(r.stderr || r.stdout).trim().slice(-1500)}`);
  return r.stdout;
}

/** A free TCP port on loopback (the kernel's choice; the container listens on it next). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const created = { containers: new Set<string>(), pods: new Set<string>(), secrets: new Set<string>() };
let serial = 0;
/** A name of this run (removed by removeAll). */
export const uniqueName = (what: string) => `screenshot-image-${what}-${process.pid}-${++serial}`;

export interface Container {
  name: string;
  /** stdout and stderr so far (the server's pino JSON lines). */
  output(): string;
  /** Resolves with the container's exit status once `podman run` ends. */
  exited: Promise<number | null>;
  /** `podman exec` in the container (as the image's user). */
  exec(cmd: string[], opts?: { user?: string; timeoutMs?: number }): Promise<Run>;
  /** Reads a JSON value from `podman inspect --format {{json <path>}}`. */
  inspect(path: string): Promise<unknown>;
}

/** `podman run` (attached, so that its output and exit are this process's to watch). */
export function runContainer(name: string, runArgs: string[], image: string, cmd: string[] = []): Container {
  created.containers.add(name);
  // --sig-proxy=false: signals go to the container only through `podman stop/kill`, as an engine sends them.
  const proc: ChildProcess = spawn('podman', ['run', '--name', name, '--sig-proxy=false', ...runArgs, image, ...cmd], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const take = (d: Buffer) => {
    out += d;
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  const exited = new Promise<number | null>((r) => proc.once('close', (code) => r(code)));
  const { exec, inspect } = existing(name);
  return { name, output: () => out, exited, exec, inspect };
}

/** A container something else started (podman kube play): exec, inspect and its log so far. */
export function existing(name: string): Pick<Container, 'name' | 'exec' | 'inspect'> & { logs(): Promise<string> } {
  return {
    name,
    exec: (cmd, opts = {}) => podman(['exec', ...(opts.user ? ['--user', opts.user] : []), name, ...cmd], { timeoutMs: opts.timeoutMs ?? 30_000 }),
    async inspect(path) {
      return JSON.parse(await must(['inspect', '--format', `{{json ${path}}}`, name]));
    },
    logs: async () => {
      const r = await podman(['logs', name]);
      return r.stdout + r.stderr;
    },
  };
}

export const recordPod = (name: string) => void created.pods.add(name);
export const recordSecret = (name: string) => void created.secrets.add(name);

/** Removes containers an earlier run left behind (killed before its clean-up), never a live run's. */
export async function removeLeftovers(): Promise<string[]> {
  const names = (await podman(['ps', '-a', '--format', '{{.Names}}'])).stdout.split('\n').filter(Boolean);
  const stale = names.filter((n) => {
    const pid = Number(/^screenshot-image-.+-(\d+)-\d+$/.exec(n)?.[1]);
    if (!pid) return false;
    try {
      process.kill(pid, 0);
      return false; // its run is still going
    } catch {
      return true;
    }
  });
  if (stale.length) await podman(['rm', '-f', '-t', '0', ...stale]);
  return stale;
}

/** Removes every container, pod and secret this run made (forcefully: the checks are over). */
export async function removeAll(): Promise<void> {
  for (const p of created.pods) await podman(['pod', 'rm', '-f', '-t', '0', p]);
  if (created.containers.size) await podman(['rm', '-f', '-t', '0', ...created.containers]);
  for (const s of created.secrets) await podman(['secret', 'rm', s]);
  created.pods.clear();
  created.containers.clear();
  created.secrets.clear();
}
