// Launches the Chromium the server uses, the way the render pool does (pipe, no DevTools port),
// forced through the egress proxy with the guard's flags. Used by tests that exercise the proxy
// with a real browser before/without the whole server.
import puppeteer, { type Browser } from 'puppeteer-core';
import { egressLaunchArgs } from '../../../server/egress/chromium-flags.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/lib/chromium/chromium-headless-shell';
export const BASE_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-breakpad'];

/** extraArgs replace nothing; pass `egress: false` to launch WITHOUT the guard's flags (flag tests). */
export async function launch(proxyPort: number | null, extraArgs: string[] = []): Promise<Browser> {
  const args = [...BASE_ARGS, ...(proxyPort === null ? [] : egressLaunchArgs(proxyPort)), ...extraArgs];
  return puppeteer.launch({ executablePath: CHROMIUM, headless: CHROMIUM.includes('headless-shell') ? 'shell' : true, pipe: true, args, protocolTimeout: 30_000 });
}
