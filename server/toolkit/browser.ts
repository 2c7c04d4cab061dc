// Launching one Chromium: the Debian build, pipe transport (no DevTools TCP port), a throwaway
// profile directory removed on close, flags that keep it off the network except through the
// egress proxy (DESIGN §4), and its sandbox on wherever it starts (server/sandbox: as an
// unprivileged user when we are root). Nothing here knows about requests.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { StepLabel } from './step-names.ts';
import {
  DEFAULT_SANDBOX,
  SandboxUnavailable,
  chromiumSays,
  describePlan,
  launchFailureReason,
  launchPlans,
  prepareProfile,
  wrapCommand,
  type LaunchPlan,
  type SandboxSettings,
} from '../sandbox/index.ts';

/** The named step of a render that waits for the pool's browser (started, or restarted after a crash). */
export const BROWSER_STEP: StepLabel = { name: 'browser', description: 'starting the browser' };

export interface LaunchOptions {
  executablePath: string;
  /** Extra flags, e.g. the egress guard's proxy flags. */
  args: string[];
  /** How Chromium is confined (default: sandbox wherever it starts, BROWSER_SANDBOX=auto). */
  sandbox?: SandboxSettings;
  /**
   * Started under `nice -n` this (1..19): the browser and every process it forks (zygote,
   * renderers, GPU) yield the CPU to work at normal priority. For background work (batch items).
   */
  niceness?: number;
}

export interface LaunchedBrowser {
  browser: Browser;
  /** Kills the process if it does not close in time, and removes the profile directory. */
  close(): Promise<void>;
  confinement: Confinement;
}

/** Flags every browser gets. Each one is here for a reason given beside it. */
export const BASE_FLAGS = [
  '--disable-background-networking', // no update checks, safe-browsing, suggestions: nothing leaves on its own
  '--disable-component-update',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-domain-reliability',
  '--no-pings',
  '--disable-breakpad', // no crash dumps (threat model: isolation and retention)
  '--disable-crash-reporter',
  '--mute-audio',
  '--hide-scrollbars', // captures show content, not scrollbars
  '--force-color-profile=srgb', // the same colours on every host: probes and goldens depend on it
  '--font-render-hinting=none',
  '--disable-features=Translate,MediaRouter,OptimizationHints,InterestFeedContentSuggestions,AutofillServerCommunication,CertificateTransparencyComponentUpdater',
  '--disable-renderer-backgrounding', // background contexts render at full speed
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  // shared memory in the temp dir, not /dev/shm: containers give /dev/shm 64 MB, and one
  // 10000x10000 capture (400 MB of pixels) would fail there, or starve every other browser on the host
  '--disable-dev-shm-usage',
];

export function isHeadlessShell(executablePath: string): boolean {
  return path.basename(executablePath).includes('headless-shell');
}

/** Where a launched browser stands (server/sandbox): what the pool logs, loudly when unconfined. */
export interface Confinement {
  /** Chromium's sandbox is on: renderers in their own namespaces under seccomp-bpf. */
  sandbox: boolean;
  /** The uid the browser runs as. */
  uid: number;
  /** Why a more confined plan did not start (auto mode fell back), or that BROWSER_SANDBOX=off. */
  reason?: string;
}

/**
 * The plan that worked first for a browser binary, settings and TMPDIR. Later launches
 * (recycling, crash replacement) use only that plan: a fallback is decided once per process, at
 * the first launch, never because a later launch failed for some passing reason (load, a timeout).
 */
const workingPlan = new Map<string, { plan: LaunchPlan; reason?: string }>();

export async function launchBrowser(opts: LaunchOptions): Promise<LaunchedBrowser> {
  const settings = opts.sandbox ?? DEFAULT_SANDBOX;
  const isRoot = process.getuid?.() === 0;
  const key = JSON.stringify([opts.executablePath, settings, isRoot, os.tmpdir()]); // the profile's place matters too
  const known = workingPlan.get(key);
  const plans = known ? [known.plan] : launchPlans(settings, isRoot);
  const failures: string[] = [];
  for (const plan of plans) {
    try {
      const launched = await launchWith(opts, plan);
      const reason = known ? known.reason : failures.join('; ') || (settings.mode === 'off' ? 'BROWSER_SANDBOX=off' : undefined);
      if (!known) workingPlan.set(key, { plan, reason });
      const uid = plan.user?.uid ?? process.getuid?.() ?? -1;
      return { ...launched, confinement: { sandbox: plan.sandbox, uid, ...(reason ? { reason } : {}) } };
    } catch (e) {
      const why = e instanceof SandboxUnavailable ? e.message : launchFailureReason(e);
      failures.push(`${describePlan(plan)}: ${why}`);
      if (plan !== plans.at(-1)) continue;
      if (settings.mode === 'require') throw new Error(`Chromium did not start with its sandbox (BROWSER_SANDBOX=require): ${why}`, { cause: e });
      if (failures.length === 1) throw e; // the only plan: its own error, unchanged
      throw new Error(`Chromium did not start in any way BROWSER_SANDBOX=${settings.mode} allows: ${failures.join('; ')}`, { cause: e });
    }
  }
  throw new Error('no launch plan'); // unreachable: launchPlans never returns an empty list
}

const NICE = ['/usr/bin/nice', '/bin/nice'];

/**
 * The command under `nice`, which execs it (the pid puppeteer keeps is Chromium's). Niceness is
 * inherited at fork, so it must be set before Chromium starts its zygote: renicing the browser
 * afterwards would leave its renderers at normal priority.
 */
function atNiceness(niceness: number | undefined, cmd: { command: string; args: string[] }): { command: string; args: string[] } {
  if (!niceness) return cmd;
  const nice = NICE.find((p) => existsSync(p));
  if (!nice) throw new Error('nice (coreutils) is not installed: cannot start a browser at a lower CPU priority');
  return { command: nice, args: ['-n', String(niceness), cmd.command, ...cmd.args] };
}

/** The plan's command loading about:blank once, without the pipe, to hear what Chromium says. */
function diagnosis(opts: LaunchOptions, plan: LaunchPlan, profile: string): [string, string[], NodeJS.ProcessEnv] {
  const { command, args } = wrapCommand(plan, opts.executablePath, ['--headless', `--user-data-dir=${profile}`, ...BASE_FLAGS, '--dump-dom', 'about:blank']);
  return [command, args, childEnv(plan, profile)];
}

/**
 * What Chromium inherits: what it needs, nothing else. The server's environment holds secrets
 * (DATABASE_URL, API_KEYS, LINK_SIGNING_KEK); a compromised renderer could read its own copy
 * and paint it into the screenshot it returns. Another user cannot use root's HOME: it gets the
 * throwaway profile (removed on close).
 */
const CHROMIUM_ENV = /^(PATH|HOME|LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|FONTCONFIG_[A-Z_]+|XDG_[A-Z_]+)$/;
function childEnv(plan: LaunchPlan, profile: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => CHROMIUM_ENV.test(k)));
  return plan.user ? { ...env, HOME: profile } : env;
}

async function launchWith(opts: LaunchOptions, plan: LaunchPlan): Promise<Omit<LaunchedBrowser, 'confinement'>> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'shot-chromium-'));
  const headless = isHeadlessShell(opts.executablePath) ? 'shell' : true;
  let browser: Browser;
  try {
    prepareProfile(profile, plan);
    // Puppeteer's own default flags, then ours; spelled out because the command may be setpriv.
    const chromiumArgs = puppeteer.defaultArgs({
      headless,
      userDataDir: profile,
      args: [...BASE_FLAGS, ...opts.args, ...(plan.sandbox ? [] : ['--no-sandbox'])],
    });
    const { command, args } = atNiceness(opts.niceness, wrapCommand(plan, opts.executablePath, chromiumArgs));
    browser = await puppeteer.launch({
      executablePath: command,
      ignoreDefaultArgs: true,
      args,
      headless,
      pipe: true,
      env: childEnv(plan, profile),
      defaultViewport: null,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      protocolTimeout: 30_000,
      timeout: 30_000,
    });
  } catch (e) {
    // Chromium's own reason, while the profile is still there (only sandboxed plans need one).
    const said = plan.sandbox && !(e instanceof SandboxUnavailable) ? chromiumSays(...diagnosis(opts, plan, profile)) : undefined;
    rmSync(profile, { recursive: true, force: true });
    throw said ? new SandboxUnavailable(said, { cause: e }) : e;
  }
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      const proc = browser.process();
      let timer: NodeJS.Timeout | undefined;
      // browser.close() may never settle for a browser that died or hangs: give it 5 s, then kill.
      const outcome = await Promise.race([
        browser.close().then(
          () => 'closed',
          () => 'failed',
        ),
        new Promise<string>((r) => (timer = setTimeout(() => r('timeout'), 5000))),
      ]);
      clearTimeout(timer);
      if (outcome !== 'closed' && proc && proc.exitCode === null) proc.kill('SIGKILL');
      rmSync(profile, { recursive: true, force: true });
    })());
  return { browser, close };
}
