// The load balancer of the reference deployment: renders the one HAProxy template
// (deploy/haproxy/haproxy.cfg.template) for `npm run cluster`, the cluster tests and compose.yaml,
// starts HAProxy on a listening socket this process opened (port 0 or a chosen port, handed over
// as fd@3: no port is guessed), and talks to its runtime API.
//
//   node --import tsx scripts/cluster/haproxy.ts --compose   prints deploy/haproxy/compose.cfg
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const TEMPLATE = path.join(ROOT, 'deploy/haproxy/haproxy.cfg.template');
export const ERRORS_DIR = path.join(ROOT, 'deploy/haproxy');

export interface HaproxyParams {
  bind: string;
  stats_bind: string;
  runtime_socket: string;
  errors_dir: string;
  log_level: 'emerg' | 'alert' | 'crit' | 'err' | 'warning' | 'notice' | 'info' | 'debug';
  /** Health checks of /readyz: every interval; down after `fall` failures, up after `rise` successes. */
  check_interval: string;
  check_timeout: string;
  check_fall: number;
  check_rise: number;
  retries: number;
  /** Extra options of every server line (compose: the DNS resolver). */
  server_options: string;
  /** The `server` lines (or a `server-template`). */
  servers: string;
  /** A `resolvers` section, or nothing. */
  resolvers: string;
}

/**
 * Health-check timing shipped in compose and used by `npm run cluster`. A draining replica answers
 * /readyz 503 at once, so it is out within fall x interval (+ one interval) = 3 s, under
 * DRAIN_SECONDS (5). The timeout exceeds /readyz's own 2 s wait for a busy browser: a loaded
 * replica is slow, not down.
 */
export const CHECKS: Pick<HaproxyParams, 'check_interval' | 'check_timeout' | 'check_fall' | 'check_rise' | 'retries'> = {
  check_interval: '1s',
  check_timeout: '3s',
  check_fall: 2,
  check_rise: 2,
  retries: 3,
};

/** compose.yaml's HAProxy: service `screenshot` (replicas found through Docker's DNS) on port 3000. */
export const COMPOSE_REPLICA_SLOTS = 10;
export const COMPOSE: HaproxyParams = {
  bind: ':8080',
  stats_bind: ':8404',
  runtime_socket: '/tmp/haproxy.sock',
  errors_dir: '/usr/local/etc/haproxy',
  log_level: 'info',
  ...CHECKS,
  server_options: 'resolvers docker init-addr none',
  servers: `    server-template replica 1-${COMPOSE_REPLICA_SLOTS} screenshot:3000`,
  resolvers: ['resolvers docker', '    nameserver dns 127.0.0.11:53', '    hold valid 5s', '    accepted_payload_size 8192'].join('\n'),
};

export function renderHaproxyConfig(p: HaproxyParams): string {
  const template = readFileSync(TEMPLATE, 'utf8');
  const out = template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!(name in p)) throw new Error(`haproxy template: no value for {{${name}}}`);
    return String(p[name as keyof HaproxyParams]);
  });
  return out.replace(/\n+$/, '\n');
}

export interface Haproxy {
  proc: ChildProcess;
  url: string;
  port: number;
  statsUrl: string;
  /** Its log (stderr), for diagnostics. */
  output(): string;
  /** One runtime API command; resolves to its answer. */
  command(cmd: string): Promise<string>;
  /** The operational state of each server of the `replicas` backend: 'UP', 'DOWN', 'MAINT'. */
  states(): Promise<Record<string, string>>;
  /** Points a server at a new address (a replica restarted on another port). */
  setAddress(server: string, host: string, port: number): Promise<void>;
  stop(): Promise<void>;
}

/** Opens a listening TCP socket (port 0: the kernel picks) whose descriptor HAProxy inherits. */
async function listeningSocket(host: string, port: number): Promise<{ fd: number; port: number; close(): void }> {
  const s = net.createServer();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen({ host, port, backlog: 511 }, () => resolve());
  });
  const fd = (s as unknown as { _handle: { fd: number } })._handle.fd;
  if (typeof fd !== 'number' || fd < 0) throw new Error('cannot hand a listening socket to haproxy on this platform');
  return { fd, port: (s.address() as net.AddressInfo).port, close: () => s.close() };
}

export async function startHaproxy(opts: {
  binary: string;
  configFile: string;
  /** Renders the config for the given bind lines (fd@3, fd@4). */
  render: (binds: { bind: string; stats_bind: string }) => string;
  host?: string;
  port?: number;
  runtimeSocket: string;
  writeConfig: (text: string) => void;
}): Promise<Haproxy> {
  const host = opts.host ?? '127.0.0.1';
  const main = await listeningSocket(host, opts.port ?? 0);
  const stats = await listeningSocket(host, 0);
  opts.writeConfig(opts.render({ bind: 'fd@3', stats_bind: 'fd@4' }));
  const proc = spawn(opts.binary, ['-db', '-f', opts.configFile], { stdio: ['ignore', 'ignore', 'pipe', main.fd, stats.fd] });
  // HAProxy holds its own copies now; this process must not accept on them.
  main.close();
  stats.close();
  let out = '';
  proc.stderr!.on('data', (d) => {
    out += d;
    if (out.length > 200_000) out = out.slice(-100_000);
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));

  const command = (cmd: string) =>
    new Promise<string>((resolve, reject) => {
      const c = net.connect(opts.runtimeSocket);
      let answer = '';
      c.on('data', (d) => (answer += d));
      c.on('end', () => resolve(answer));
      c.on('error', reject);
      c.write(cmd + '\n');
    });

  const h: Haproxy = {
    proc,
    url: `http://${host}:${main.port}`,
    port: main.port,
    statsUrl: `http://${host}:${stats.port}`,
    output: () => out,
    command,
    async states() {
      // "show servers state" columns: be_id be_name srv_id srv_name srv_addr srv_op_state ...
      // (srv_op_state: 0 stopped, 1 starting, 2 running, 3 stopping); admin state in column 7.
      const text = await command('show servers state replicas');
      const states: Record<string, string> = {};
      for (const line of text.split('\n')) {
        const f = line.trim().split(/\s+/);
        if (f.length < 8 || !/^\d+$/.test(f[0]!)) continue;
        const op = Number(f[5]);
        const admin = Number(f[6]);
        states[f[3]!] = admin & 0x01 || admin & 0x02 || admin & 0x20 ? 'MAINT' : op === 2 ? 'UP' : 'DOWN';
      }
      return states;
    },
    async setAddress(server, addr, port) {
      const answer = await command(`set server replicas/${server} addr ${addr} port ${port}`);
      if (!/changed|no need to change/i.test(answer)) throw new Error(`haproxy: set server ${server} addr: ${answer.trim()}`);
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
  // Ready when the runtime API answers.
  const until = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`haproxy exited (${proc.exitCode}):\n${out}`);
    if (
      await h.command('show info').then(
        () => true,
        () => false,
      )
    )
      break;
    if (Date.now() > until) {
      await h.stop();
      throw new Error(`haproxy did not start within 15 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return h;
}

if (process.argv[1] === import.meta.filename && process.argv[2] === '--compose') {
  process.stdout.write(renderHaproxyConfig(COMPOSE));
}

/**
 * HAProxy from the project's template in front of `servers` (name and loopback port each), its
 * config and runtime socket in `dir`, with the shipped check timing unless `checks` changes it.
 */
export function startBalancer(opts: {
  binary: string;
  dir: string;
  servers: Array<{ name: string; port: number }>;
  port?: number;
  logLevel: HaproxyParams['log_level'];
  checks?: Partial<typeof CHECKS>;
}): Promise<Haproxy> {
  const configFile = path.join(opts.dir, 'haproxy.cfg');
  const runtimeSocket = path.join(opts.dir, 'haproxy.sock');
  return startHaproxy({
    binary: opts.binary,
    configFile,
    runtimeSocket,
    port: opts.port,
    writeConfig: (text) => writeFileSync(configFile, text),
    render: (binds) =>
      renderHaproxyConfig({
        ...binds,
        runtime_socket: runtimeSocket,
        errors_dir: ERRORS_DIR,
        log_level: opts.logLevel,
        ...CHECKS,
        ...opts.checks,
        server_options: '',
        servers: opts.servers.map((s) => `    server ${s.name} 127.0.0.1:${s.port}`).join('\n'),
        resolvers: '',
      }),
  });
}
