// How the suite's command-line scripts start: run `main` when the file is the process's entry
// point, and re-execute inside a network namespace of their own (`unshare -rn`, loopback only)
// when they feed an implementation off-machine addresses (threat model, "Testing it safely").
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function realpathOf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** Runs `main(argv)` and exits with its code when `moduleUrl` is the script node was started with. */
export function runIfEntry(moduleUrl: string, main: (argv: string[]) => Promise<number>): void {
  // realpath: an installed bin is started through a symlink (node_modules/.bin/...)
  if (!process.argv[1] || realpathOf(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}

/**
 * Re-executes the script at `moduleUrl` inside `unshare -rn` with loopback up, `insideVar` set to 1
 * in its environment; returns its exit code, or null when namespaces are unavailable here.
 */
function reexecIsolated(moduleUrl: string, argv: string[], insideVar: string): number | null {
  if (spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status !== 0) return null;
  const cmd = [process.execPath, ...process.execArgv, fileURLToPath(moduleUrl), ...argv].map((s) => `'${s.replace(/'/g, `'\\''`)}'`).join(' ');
  return (
    spawnSync('unshare', ['-rn', 'sh', '-c', `ip link set lo up && exec ${cmd}`], { stdio: 'inherit', env: { ...process.env, [insideVar]: '1' } }).status ?? 1
  );
}

/**
 * Where a script that wants isolation runs: `{inside: true}` once re-executed in the namespace;
 * `{exitCode}` for the outer process, whose child did the work; `{inside: false}` without
 * isolation (not asked, or namespaces unavailable here: then `unavailable` is printed).
 */
export function isolated(moduleUrl: string, argv: string[], insideVar: string, wanted: boolean, unavailable: string): { inside: boolean; exitCode?: number } {
  if (process.env[insideVar] === '1') return { inside: true };
  if (!wanted) return { inside: false };
  const code = reexecIsolated(moduleUrl, argv, insideVar);
  if (code !== null) return { inside: false, exitCode: code };
  console.warn(unavailable);
  return { inside: false };
}
