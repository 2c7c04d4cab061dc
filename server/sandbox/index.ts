// How Chromium is confined (threat model "Isolation and retention"). The egress proxy is
// the network guarantee (DESIGN §4) only if a page cannot go around it: a renderer compromised by
// a hostile page must not be able to open sockets of its own. Chromium's sandbox gives that: its
// renderers run in a network namespace with no interface but a down `lo`, in a user and PID
// namespace of their own, under a seccomp-bpf filter; only the network service (a utility process)
// talks to the proxy.
//
// Chromium refuses its sandbox when run as root ("Running as root without --no-sandbox is not
// supported", crbug.com/638180), and this repository's machines and containers often run as root.
// So as root the browser is started as an unprivileged user (setpriv, util-linux: exec, so the
// browser stays the same process, a child of the server) with its sandbox on, which needs
// unprivileged user namespaces (Debian has no setuid chrome-sandbox). Where that cannot work, the
// plans below fall back step by step, and the caller says so loudly (BROWSER_SANDBOX=require turns
// the fallback into an error).
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** auto: sandbox wherever it starts, else fall back with a warning; require: sandbox or fail; off: never. */
export type SandboxMode = 'auto' | 'require' | 'off';

export interface SandboxSettings {
  mode: SandboxMode;
  /** The user (and group) Chromium runs as when the server runs as root. */
  uid: number;
  gid: number;
}

/** nobody:nogroup on Debian; BROWSER_SANDBOX_USER names a dedicated one. */
export const DEFAULT_SANDBOX: SandboxSettings = { mode: 'auto', uid: 65534, gid: 65534 };

/** One way of starting Chromium. The plans of a mode are tried most confined first. */
export interface LaunchPlan {
  /** Chromium's sandbox on; false adds --no-sandbox. */
  sandbox: boolean;
  /** Run as this user (we are root); null = as ourselves. */
  user: { uid: number; gid: number } | null;
}

export function launchPlans(s: SandboxSettings, isRoot: boolean): LaunchPlan[] {
  const user = isRoot ? { uid: s.uid, gid: s.gid } : null;
  const sandboxed: LaunchPlan = { sandbox: true, user };
  const unconfined: LaunchPlan = { sandbox: false, user: null }; // no sandbox, as itself: the last resort of `auto`
  if (s.mode === 'off') return [unconfined];
  if (s.mode === 'require') return [sandboxed];
  // Without namespaces, an unprivileged user still keeps a compromised renderer out of root's files.
  return isRoot ? [sandboxed, { sandbox: false, user }, unconfined] : [sandboxed, unconfined];
}

export function describePlan(p: LaunchPlan): string {
  return `${p.sandbox ? 'sandbox' : 'no sandbox'}${p.user ? ` as uid ${p.user.uid}` : ''}`;
}

/** A plan that cannot work here, found before Chromium is started; the message is the reason. */
export class SandboxUnavailable extends Error {}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];

/** The command that starts `executable` with `args` as the plan's user. */
export function wrapCommand(plan: LaunchPlan, executable: string, args: string[]): { command: string; args: string[] } {
  if (!plan.user) return { command: executable, args };
  const setpriv = SETPRIV.find((p) => existsSync(p));
  if (!setpriv) throw new SandboxUnavailable('setpriv (util-linux) is not installed: cannot start Chromium as an unprivileged user');
  const { uid, gid } = plan.user;
  // --clear-groups drops root's supplementary groups; `--` ends setpriv's options (Chromium's follow).
  return { command: setpriv, args: [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', executable, ...args] };
}

/**
 * Hands the (fresh, empty) profile directory to the plan's user, after checking that the user can
 * reach it: every directory above it must be searchable by that user (a private 0700 TMPDIR owned
 * by root is not). Mode bits only; an ACL that grants more is not seen.
 */
export function prepareProfile(profile: string, plan: LaunchPlan): void {
  if (!plan.user) return;
  const { uid, gid } = plan.user;
  for (let dir = path.dirname(profile); ; dir = path.dirname(dir)) {
    const st = statSync(dir);
    const searchable = st.uid === uid ? st.mode & 0o100 : st.gid === gid ? st.mode & 0o010 : st.mode & 0o001;
    if (!searchable)
      throw new SandboxUnavailable(`uid ${uid} cannot reach the browser profile: ${dir} is not searchable by it (TMPDIR must be, e.g. mode 0711 or 1777)`);
    if (dir === path.dirname(dir)) break;
  }
  chownSync(profile, uid, gid);
}

const TELLING = /sandbox|namespace|setpriv|setuid|as root|permission denied/i;

/** The line of a failed launch's output that says why (Chromium's own words where it gave them). */
export function launchFailureReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const telling = lines.find((l) => TELLING.test(l) && !/dbus|TROUBLESHOOTING/i.test(l));
  return (telling ?? lines[0] ?? 'unknown error').slice(0, 400);
}

/**
 * Why Chromium would not run sandboxed, in its own words. A browser that dies after the pipe
 * opened leaves only "Target closed" to Puppeteer, not its stderr; so after a failed sandboxed
 * launch (once per process) the same command loads about:blank without the pipe, and its stderr
 * is read: e.g. "No usable sandbox!" where user namespaces are refused.
 */
export function chromiumSays(command: string, args: string[], env: NodeJS.ProcessEnv): string | undefined {
  const r = spawnSync(command, args, { env, encoding: 'utf8', timeout: 15_000, stdio: ['ignore', 'ignore', 'pipe'] });
  const line = (r.stderr ?? '').split('\n').find((l) => TELLING.test(l) && !/dbus/i.test(l));
  // Chromium's log prefix ("[1125/091631.510337:ERROR:content/...:130] ") is noise in our log.
  return (
    line
      ?.replace(/^\[[^\]]*\]\s*/, '')
      .trim()
      .slice(0, 400) || undefined
  );
}
