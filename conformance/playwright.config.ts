// Playwright test runner configuration for the conformance run. Started by conformance/bin.ts,
// which passes the run options in SCREENSHOT_CONFORMANCE_OPTIONS. No browser is used by the suite
// itself: Playwright is the runner (parallel workers, retries off, results, attachments, reporters).
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { readOptionsFromEnv } from './options.ts';

const options = readOptionsFromEnv();
const here = path.dirname(new URL(import.meta.url).pathname);

export default defineConfig({
  testDir: here,
  testMatch: /suite\.spec\.ts$/,
  fullyParallel: true,
  workers: options.workers,
  retries: 0,
  timeout: 60_000,
  forbidOnly: true,
  outputDir: path.join(options.reportDir, 'test-results'),
  preserveOutput: 'failures-only',
  reporter: [
    [path.join(here, 'reporters', 'summary-reporter.ts')],
    ['junit', { outputFile: path.join(options.reportDir, 'junit.xml') }],
    [path.join(here, 'reporters', 'json-reporter.ts')],
    [path.join(here, 'reporters', 'html-reporter.ts')],
  ],
});
