// Launches Chromium through the server's launchBrowser once per BROWSER_SANDBOX mode given as
// arguments and prints one JSON line per mode: the confinement it got, or the error. For
// sandbox.test.ts, which runs it where the sandbox cannot start (without-userns.sh).
import { findChromium } from '../../../server/config.ts';
import { launchBrowser } from '../../../server/toolkit/browser.ts';
import { DEFAULT_SANDBOX, type SandboxMode } from '../../../server/sandbox/index.ts';

for (const mode of process.argv.slice(2) as SandboxMode[]) {
  try {
    const b = await launchBrowser({ executablePath: findChromium(process.env), args: [], sandbox: { ...DEFAULT_SANDBOX, mode } });
    const title = await (await b.browser.newPage()).evaluate(() => 1 + 1);
    await b.close();
    console.log(JSON.stringify({ mode, confinement: b.confinement, works: title === 2 }));
  } catch (e) {
    console.log(JSON.stringify({ mode, error: String(e) }));
  }
}
