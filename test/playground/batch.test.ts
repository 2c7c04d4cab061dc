// The playground's Batch section in a real browser (Playwright driving the system Chromium, as the
// other playground tests): a list built from the form, sent as POST /v1/batches with the page's
// key, its items landing as thumbnails with their state, the webhook's deliveries listed; a pasted
// body the server refuses shows its message, naming the field, next to the list; a cancel.
// Set PLAYGROUND_SCREENSHOTS=<dir> to keep pictures of the page: playground-batch-{wide,section,narrow,dark,refused,cancelled}.png.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from '@playwright/test';
import { page as servePage, startFixture, webhookReceiver, type Fixture } from '../support/fixture.ts';
import { startTestServer, TEST_KEY, type TestServer } from '../support/server.ts';

let srv: TestServer;
let fx: Fixture;
let hooks: ReturnType<typeof webhookReceiver>;
let browser: Browser;
const pageErrors: string[] = [];

/** Three pages, each one colour edge to edge: a thumbnail's colour says which page it is. */
const COLOURS = { red: [220, 40, 40], green: [30, 160, 60], blue: [20, 90, 200] } as const;

before(async () => {
  fx = await startFixture();
  for (const [name, [r, g, b]] of Object.entries(COLOURS))
    servePage(fx, `/${name}`, `<!doctype html><body style="margin:0;background:rgb(${r},${g},${b});color:#fff;font:48px sans-serif">${name}</body>`);
  hooks = webhookReceiver(fx);
  srv = await startTestServer({}, fx);
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH, chromiumSandbox: false });
});

after(async () => {
  await browser?.close();
  await srv?.close();
  await fx?.close();
});

async function open(width = 1280): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage(); // AxeBuilder needs a context of its own
  page.on('pageerror', (e) => void pageErrors.push(e.message));
  page.on('console', (m) => void (m.type() === 'error' && !/status of 4\d\d/.test(m.text()) && pageErrors.push(m.text())));
  await page.goto(`${srv.url}/`);
  await page.locator('#group-picture').waitFor();
  await page.getByLabel('API key').fill(TEST_KEY);
  return page;
}

const shoot = (page: Page, name: string) =>
  process.env.PLAYGROUND_SCREENSHOTS &&
  page.locator('#batch').screenshot({ path: path.join(process.env.PLAYGROUND_SCREENSHOTS, `playground-batch-${name}.png`) });

const viewport = (page: Page, name: string) => page.getByRole('group', { name: 'viewport' }).getByLabel(name, { exact: true });

test('three requests added from the form land as three pictures, succeeded, and the webhook deliveries are listed', async () => {
  const page = await open();
  await viewport(page, 'width').fill('400');
  await viewport(page, 'height').fill('300');
  for (const name of Object.keys(COLOURS)) {
    await page.getByLabel('url', { exact: true }).fill(`${fx.origin}/${name}`);
    await page.getByRole('button', { name: 'Add to batch' }).click();
  }
  assert.equal(await page.locator('#batch-count').innerText(), '3 requests');
  const list = JSON.parse(await page.getByLabel(/^Requests \(JSON\)/).inputValue());
  assert.deepEqual(
    list.map((r: any) => r.url),
    Object.keys(COLOURS).map((n) => `${fx.origin}/${n}`),
  );
  await page.getByLabel('Webhook URL (optional)').fill(`${fx.origin}/hook`);
  const submitted = page.waitForResponse((r) => r.url().endsWith('/v1/batches') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Submit batch' }).click();
  assert.equal((await submitted).status(), 202);

  // Each item's picture is fetched with the key and decoded: three images, each of its page's colour.
  await page.waitForFunction(
    () => [...document.querySelectorAll<HTMLImageElement>('#batch-items img')].filter((i) => i.complete && i.naturalWidth > 0).length === 3,
    null,
    {
      timeout: 60_000,
    },
  );
  const items = await page.locator('#batch-items li').evaluateAll((lis) =>
    lis.map((li) => {
      const img = li.querySelector('img')!;
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      return {
        caption: (li.querySelector('.caption') as HTMLElement).innerText,
        size: [img.naturalWidth, img.naturalHeight],
        pixel: [...ctx.getImageData(200, 250, 1, 1).data.slice(0, 3)],
      };
    }),
  );
  assert.equal(items.length, 3);
  for (const [i, [name, rgb]] of Object.entries(COLOURS).entries()) {
    const item = items[i]!;
    assert.match(item.caption, new RegExp(`^#${i} succeeded 200`), `item ${i}: ${item.caption}`);
    assert.deepEqual(item.size, [400, 300]);
    for (const [c, want] of rgb.entries()) assert.ok(Math.abs(item.pixel[c]! - want) <= 3, `item ${i} is the ${name} page: ${item.pixel}`);
  }
  await page.locator('#batch-summary', { hasText: /· done · 3 items: 3 succeeded, 0 failed/ }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Cancel batch' }).isHidden(), true, 'nothing left to cancel');

  // The deliveries: one per item and batch.completed, each delivered (the receiver answers 204).
  const completed = page.locator('#batch-deliveries tbody tr', { hasText: 'batch.completed' });
  await completed.waitFor({ timeout: 30_000 });
  const rows = await page.locator('#batch-deliveries tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText)));
  assert.deepEqual(rows.map((r) => r[0]).sort(), ['batch.completed', 'capture.succeeded', 'capture.succeeded', 'capture.succeeded']);
  for (const r of rows) assert.deepEqual([r[3], r[4]], ['204', 'delivered'], r.join(' '));
  assert.equal(hooks.length, 4, 'the receiver got what the table lists');
  const { violations } = await new AxeBuilder({ page }).analyze();
  assert.deepEqual(
    violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`),
    [],
    'axe-core with a batch landed',
  );

  if (process.env.PLAYGROUND_SCREENSHOTS) {
    await page.locator('#batch').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(process.env.PLAYGROUND_SCREENSHOTS, 'playground-batch-wide.png') });
    await shoot(page, 'section');
    await page.setViewportSize({ width: 600, height: 900 });
    await shoot(page, 'narrow');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'dark');
  }
  await page.close();
});

test('a pasted body the server refuses shows its message, naming the field, next to the list; text that is not JSON shows the server’s word on it', async () => {
  const page = await open();
  const box = page.getByLabel(/^Requests \(JSON\)/);
  const error = page.locator('#err-batch-requests');
  await box.fill(JSON.stringify({ requests: [{ url: `${fx.origin}/red` }, { url: `${fx.origin}/green`, viewport: { width: 'wide', height: 300 } }] }));
  assert.equal(await page.locator('#batch-count').innerText(), '2 requests');
  await page.getByRole('button', { name: 'Submit batch' }).click();
  await error.waitFor();
  assert.match(await error.innerText(), /^400 bad_request: requests\[1\]\.viewport\.width must be/);
  assert.equal(await box.getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('#batch-result').isHidden(), true, 'no batch was made');

  await box.fill('[{"url": }]');
  await page.getByRole('button', { name: 'Submit batch' }).click();
  await page.locator('#err-batch-requests', { hasText: 'not valid JSON' }).waitFor();
  assert.match(await error.innerText(), /^400 bad_request: the request body is not valid JSON \(Your browser says: Unexpected token .+\.\)$/);

  // A refused webhook URL shows by its own box, naming it.
  await box.fill(JSON.stringify([{ url: `${fx.origin}/red` }]));
  await page.getByLabel('Webhook URL (optional)').fill('http://169.254.169.254/hook');
  await page.getByRole('button', { name: 'Submit batch' }).click();
  await page.locator('#err-batch-webhook').waitFor();
  assert.match(await page.locator('#err-batch-webhook').innerText(), /^400 \w+: webhook\.url /);
  assert.equal(await error.isHidden(), true);
  await shoot(page, 'refused');
  await page.close();
});

test('a failed item shows its status and error code; Cancel batch: the items not started are cancelled, and the batch ends cancelled', async () => {
  const page = await open();
  // A page that answers 404, which failOnTargetError turns into a failure; then pages that take 3 s
  // each: one is running, the rest wait their turn, when the cancel comes.
  const slow = [1, 2, 3, 4].map((i) => ({ url: `${fx.origin}/slow?ms=3000&i=${i}` }));
  await page.getByLabel(/^Requests \(JSON\)/).fill(JSON.stringify([{ url: `${fx.origin}/missing`, failOnTargetError: true }, ...slow]));
  await page.getByRole('button', { name: 'Submit batch' }).click();
  const cancel = page.getByRole('button', { name: 'Cancel batch' });
  await page.locator('#batch-item-0[data-state=failed]').waitFor({ timeout: 30_000 });
  const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE');
  await cancel.click();
  assert.equal((await deleted).status(), 200);
  // The batch is cancelled at once; the item that was running still finishes, and the page follows it until it lands.
  await page.locator('#batch-status', { hasText: /^Batch cancelled\.$/ }).waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#batch-summary').innerText(), /· cancelled · 5 items: \d succeeded, 1 failed, \d cancelled$/);
  assert.ok((await page.locator('#batch-items li[data-state=cancelled]').count()) >= 2, 'the items not started are cancelled');
  assert.equal(await page.locator('#batch-items li[data-state=queued], #batch-items li[data-state=running]').count(), 0);
  for (const li of await page.locator('#batch-items li[data-state=succeeded]').all()) await li.locator('img').waitFor();
  assert.match(await page.locator('#batch-items li[data-state=cancelled] .caption').first().innerText(), /cancelled/);
  assert.match(await page.locator('#batch-item-0 .caption').innerText(), /^#0 failed 424 target_error\s+\S/);
  await shoot(page, 'cancelled');
  await page.close();
  assert.deepEqual(pageErrors, [], 'no script or CSP errors on the page');
});
