// What tracing costs the server's process per capture (docs/performance.md, "Traces"): CPU time
// (user + system) of the Node process per capture, Chromium's excluded (tracing adds nothing to
// it), for three servers started in turn, interleaved round after round so that the machine's
// load falls on each alike: `before` (a checkout without tracing, --before <dir>), `off` (this
// tree, no endpoint) and `on` (this tree, exporting http/protobuf to a receiver on loopback).
//   node --import tsx scripts/trace-cost.ts [--before /path/to/checkout] [--rounds 3] [--captures 20]
// One child process per server and round: tracing is process-wide.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const KEY = 'trace-cost-key-0123456789abcdef';
const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
};

if (process.argv[2] === '--child') {
  const [, , , root, mode, n, receiverUrl] = process.argv;
  const { loadConfig } = await import(path.join(root!, 'server/config.ts'));
  const { startServer } = await import(path.join(root!, 'server/start.ts'));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'trace-cost-'));
  const env: Record<string, string> = {
    CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '',
    API_KEYS: KEY,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_MINUTE: '0',
    CACHE_TTL_SECONDS: '0',
    DATA_DIR: dataDir,
    ...(mode === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl!, OTEL_BSP_SCHEDULE_DELAY: '200' } : {}),
  };
  const { pino } = await import('pino');
  const server = await startServer(loadConfig(env), { log: pino({ level: 'info' }, { write: () => {} }) });
  const shot = async (i: number) => {
    const r = await fetch(`${server.url}/v1/screenshot`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', traceparent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01` },
      body: JSON.stringify({ html: `<style>body{background:#${(i * 2654435761).toString(16).slice(-6).padStart(6, '0')}}</style><h1>capture ${i}</h1>` }),
    });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`capture ${i}: ${r.status}`);
  };
  for (let i = 0; i < 3; i++) await shot(i); // warm: the browser, the JIT
  const cpu = process.cpuUsage();
  for (let i = 0; i < Number(n); i++) await shot(100 + i);
  const used = process.cpuUsage(cpu);
  await server.close(); // with tracing on, exports what is queued: counted below, not above
  rmSync(dataDir, { recursive: true, force: true });
  console.log(JSON.stringify({ mode, msPerCapture: (used.user + used.system) / 1000 / Number(n) }));
  process.exit(0);
} else {
  const self = path.resolve(import.meta.dirname, '..');
  const before = arg('before', '');
  const rounds = Number(arg('rounds', '3'));
  const captures = arg('captures', '20');
  const modes: Array<[string, string]> = [...(before ? [['before', before] as [string, string]] : []), ['off', self], ['on', self]];
  const results: Record<string, number[]> = {};
  // The receiver runs here, so that decoding the exports is not counted as the server's CPU.
  const { startReceiver } = await import('../test/support/otlp.ts');
  const receiver = await startReceiver();
  for (let r = 0; r < rounds; r++) {
    for (const [mode, root] of r % 2 ? [...modes].reverse() : modes) {
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', import.meta.filename, '--child', root, mode === 'on' ? 'on' : 'off', captures, receiver.url],
          { cwd: self, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        let text = '';
        child.stdout.on('data', (c) => (text += c));
        child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`${mode}: exit ${code}`))));
      });
      const line = JSON.parse(out.trim().split('\n').at(-1)!);
      (results[mode] ??= []).push(line.msPerCapture);
      console.log(
        `round ${r + 1} ${mode}: ${line.msPerCapture.toFixed(2)} ms CPU per capture${mode === 'on' ? ` (${receiver.spans().length} spans received so far)` : ''}`,
      );
    }
  }
  await receiver.close();
  const load = execFileSync('cat', ['/proc/loadavg']).toString().split(' ')[0];
  for (const [mode, xs] of Object.entries(results)) {
    const sorted = [...xs].sort((a, b) => a - b);
    console.log(
      `${mode}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} ms, min ${sorted[0]!.toFixed(2)}, max ${sorted.at(-1)!.toFixed(2)} (${xs.length} rounds of ${captures}; load ${load})`,
    );
  }
}
