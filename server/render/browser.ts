// Launching one Chromium: the Debian build, pipe transport (no DevTools TCP port), a throwaway
// profile directory removed on close, and flags that keep it off the network except through the
// egress proxy (DESIGN §4). Nothing here knows about requests.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

export interface LaunchOptions {
  executablePath: string;
  /** Extra flags, e.g. the egress guard's proxy flags. */
  args: string[];
}

export interface LaunchedBrowser {
  browser: Browser;
  /** Kills the process if it does not close in time, and removes the profile directory. */
  close(): Promise<void>;
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

export async function launchBrowser(opts: LaunchOptions): Promise<LaunchedBrowser> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'shot-chromium-'));
  const args = [...BASE_FLAGS, ...opts.args];
  if (process.getuid?.() === 0) args.push('--no-sandbox'); // Chromium refuses to start as root otherwise
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: opts.executablePath,
      headless: isHeadlessShell(opts.executablePath) ? 'shell' : true,
      pipe: true,
      userDataDir: profile,
      args,
      defaultViewport: null,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      protocolTimeout: 30_000,
      timeout: 30_000,
    });
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      const proc = browser.process();
      let timer: NodeJS.Timeout | undefined;
      // browser.close() may never settle for a browser that died or hangs: give it 5 s, then kill.
      const outcome = await Promise.race([
        browser.close().then(() => 'closed', () => 'failed'),
        new Promise<string>((r) => (timer = setTimeout(() => r('timeout'), 5000))),
      ]);
      clearTimeout(timer);
      if (outcome !== 'closed' && proc && proc.exitCode === null) proc.kill('SIGKILL');
      rmSync(profile, { recursive: true, force: true });
    })());
  return { browser, close };
}
