// Fairness of the batch queue, on the embedded store with pg-boss and the real runner, with a
// capture service of the test's own that records the order and the overlap of the items it is
// given (no browser): what is asserted is order and occupancy, never time.
//   per key     a key with two batches waiting (16 items) and another key's batch of 3 submitted
//               after them: the second key's items take turns with the first key's, and all run
//               before the first key's second batch starts
//   the share   RENDER_CONCURRENCY 4 at BATCH_SLOT_SHARE 50: never more than 2 items at once, and 2
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import type { Account } from '../../server/accounts/index.ts';
import { startBatches, type Batches } from '../../server/batches/index.ts';
import { createLogger } from '../../server/log.ts';
import type { CaptureOutcome, CaptureService } from '../../server/service.ts';
import { embeddedStore, type TestStore } from '../support/stores.ts';
import { eventually, sleep } from '../support/wait.ts';

const KEYS = ['fair-key-a-0123456789abcdef', 'fair-key-b-0123456789abcdef'];
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A capture service that records each item's html, in the order the items start, and holds each until `open`. */
function recorder() {
  const started: string[] = [];
  let running = 0;
  let peak = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const capture = (async (_account: Account, body: unknown) => {
    started.push((body as { html: string }).html);
    running++;
    peak = Math.max(peak, running);
    await gate;
    await sleep(5);
    running--;
    return { body: Buffer.from('picture'), contentType: 'image/png', facts: { credits: { charged: 0, remaining: 0 } } } as unknown as CaptureOutcome;
  }) as unknown as CaptureService;
  return { capture, started, open: () => release(), running: () => running, peak: () => peak };
}

async function start(renderConcurrency: number, rec: ReturnType<typeof recorder>): Promise<{ batches: Batches; a: Account; b: Account }> {
  const store: TestStore = await embeddedStore();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'batch-fair-'));
  const accounts = await store.open({ apiKeys: KEYS, freeCredits: 1000 });
  const batches = await startBatches({
    config: {
      slotSharePercent: 50,
      niceness: 0,
      retentionSeconds: 3600,
      webhookRetrySeconds: 1,
      pollSeconds: 30,
      results: { kind: 'local' },
      webhookSecret: null,
    },
    dataDir,
    databaseUrl: null,
    renderConcurrency,
    accounts,
    capture: rec.capture,
    pinUrl: () => Promise.reject(new Error('no webhooks here')),
    checkUrl: async (u) => u,
    registry: new Registry(),
    log: createLogger('silent'),
    runItems: true,
  });
  cleanups.push(async () => {
    rec.open();
    await batches.close();
    await accounts.close();
    await store.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const [a, b] = await Promise.all(KEYS.map(async (k) => (await accounts.authenticate(k))!));
  return { batches, a: a!, b: b! };
}

const items = (name: string, n: number) => ({ requests: Array.from({ length: n }, (_, i) => ({ html: `${name}:${i}` })) });

test("per key, not per batch: a key's second batch waits behind its first; another key's batch takes turns with it", { timeout: 120_000 }, async (t) => {
  const rec = recorder();
  const { batches, a, b } = await start(1, rec); // one batch slot
  await batches.service.submit(a, items('A1', 8));
  await batches.service.submit(a, items('A2', 8));
  await batches.service.submit(b, items('B', 3));
  rec.open();
  assert.ok(await eventually(() => rec.started.length === 19 && rec.running() === 0, 60_000, 50), `all 19 items ran: ${rec.started.length}`);
  const at = (name: string) => rec.started.map((h, i) => (h.startsWith(`${name}:`) ? i : -1)).filter((i) => i >= 0);
  t.diagnostic(`order: ${rec.started.join(' ')}`);
  const [firstA2] = at('A2');
  assert.ok(
    at('B').every((i) => i < firstA2!),
    `the other key's items run before the key's second batch: ${rec.started.join(' ')}`,
  );
  // Taking turns: B's 3 items within the first 7 starts (A1's first, then one of B's and one of
  // A1's each turn); by batch alone B would share turns with A1 and A2, its last item 9th.
  assert.ok(Math.max(...at('B')) <= 6, `the other key's batch is not held back: ${rec.started.join(' ')}`);
  // Within a batch, items start in order.
  for (const name of ['A1', 'A2', 'B']) {
    const idx = rec.started.filter((h) => h.startsWith(`${name}:`)).map((h) => Number(h.split(':')[1]));
    assert.deepEqual(
      idx,
      [...idx].sort((x, y) => x - y),
      `${name} in order`,
    );
  }
});

test('batch items hold at most BATCH_SLOT_SHARE of the render slots (RENDER_CONCURRENCY 4, 50 %: 2)', { timeout: 120_000 }, async () => {
  const rec = recorder();
  const { batches, a } = await start(4, rec);
  await batches.service.submit(a, items('S', 8));
  assert.ok(await eventually(() => rec.running() === 2, 30_000, 50), `two items run: ${rec.running()}`);
  // Several of pg-boss's polls (every 0.5 s): a third worker would have taken an item by now.
  await sleep(2000);
  assert.equal(rec.running(), 2, 'no third item while two are held');
  rec.open();
  assert.ok(await eventually(() => rec.started.length === 8 && rec.running() === 0, 30_000, 50));
  assert.equal(rec.peak(), 2, 'the share is used, never exceeded');
});
