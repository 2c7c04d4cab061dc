// Waiting in tests: a sleep, and polling until a condition holds (never a fixed delay standing in
// for an event the test can observe).

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` until it returns true or `ms` passes; returns the last result. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000, every = 50): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await sleep(every);
  }
}
