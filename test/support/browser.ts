// A Chromium for tests (and the clean-up bench) that drive pages without the server: started by
// the server's own launchBrowser, so with the same binary (CHROMIUM_PATH, else the one the server
// would find), base flags, sandbox (BROWSER_SANDBOX), pipe transport and throwaway profile as the
// pool's; `args` adds to them (the egress flags, or a flag under test).
import { browserSandbox, findChromium } from '../../server/config.ts';
import { launchBrowser, type LaunchedBrowser } from '../../server/toolkit/browser.ts';

export type { LaunchedBrowser };

export function launchChromium(args: string[] = []): Promise<LaunchedBrowser> {
  return launchBrowser({ executablePath: findChromium(process.env), args, sandbox: browserSandbox(process.env) });
}
