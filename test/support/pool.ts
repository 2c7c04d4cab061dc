// What the server's browser holds, observed from outside the pool (test/support/server.ts hands
// the pool a launcher that keeps the browsers it starts): contexts and pages, and the idle shape
// the pool returns to after each render (no context or page may outlive its request).
import type { TestServer } from './server.ts';
import { eventually, sleep } from './wait.ts';

/** Browser contexts of the current browser (the default context included); -1 when none is up. */
export async function contextCount(s: TestServer): Promise<number> {
  const b = await s.browser();
  return b ? b.browserContexts().length : -1;
}

/** Open pages (tabs) of the current browser; -1 when none is up. */
export async function pageCount(s: TestServer): Promise<number> {
  const b = await s.browser();
  return b ? (await b.pages()).length : -1;
}

export interface PoolShape {
  contexts: number;
  pages: number;
}

const shapeOf = async (s: TestServer): Promise<PoolShape> => ({ contexts: await contextCount(s), pages: await pageCount(s) });

/**
 * What the idle pool holds once it has settled: the default context plus the prepared (warm)
 * contexts, each with one page. Measured, not computed, so that the tests do not depend on how
 * many slots the pool keeps warm; the value is stable over 600 ms when returned.
 */
export async function idleShape(s: TestServer, ms = 10_000): Promise<PoolShape> {
  const until = Date.now() + ms;
  let last = '';
  let since = Date.now();
  for (;;) {
    const shape = await shapeOf(s);
    const key = JSON.stringify(shape);
    if (key !== last) {
      last = key;
      since = Date.now();
    } else if (Date.now() - since >= 600 && shape.contexts > 0 && s.server.pool.inFlight === 0) {
      return shape;
    }
    if (Date.now() > until) throw new Error(`the pool did not settle: ${key}`);
    await sleep(100);
  }
}

/** Waits until the pool is back to `want`; returns the shape it ended with. */
export async function backTo(s: TestServer, want: PoolShape, ms = 5000): Promise<PoolShape> {
  let now: PoolShape = { contexts: -1, pages: -1 };
  await eventually(
    async () => {
      now = await shapeOf(s);
      return now.contexts === want.contexts && now.pages === want.pages;
    },
    ms,
    100,
  );
  return now;
}

/**
 * Whether a page of the server's browser shows `path` with its load event behind it: a render of
 * it has passed its load and is waiting (for a selector that never comes, say). The event a test
 * waits for before it interrupts a render "in the middle", instead of a fixed sleep.
 */
export async function pageLoaded(s: TestServer, path: string): Promise<boolean> {
  const b = await s.browser();
  for (const p of (await b?.pages()) ?? []) {
    if (!p.url().endsWith(path)) continue;
    if (await p.evaluate(() => document.readyState === 'complete').catch(() => false)) return true;
  }
  return false;
}
