// The image tests' output: one line per check ("ok" or "FAIL", its name, what it measured or why it
// failed), and the count at the end: "image: N passed, N failed".
let passed = 0;
let failed = 0;

/** Runs one check; `fn` returns the line's detail (figures). Never throws: a failure is counted. */
export async function check(name: string, fn: () => Promise<string>): Promise<boolean> {
  const t0 = Date.now();
  try {
    const detail = await fn();
    passed++;
    console.log(`ok   ${name}: ${detail} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    return true;
  } catch (e) {
    failed++;
    const msg = e instanceof Error ? e.message : String(e);
    console.log(`FAIL ${name}: ${msg.split('\n').join('\n     ')}`);
    return false;
  }
}

/** A check that could not run because what it stands on failed: counted as failed. */
export function notRun(name: string, why: string): void {
  failed++;
  console.log(`FAIL ${name}: not run (${why})`);
}

export function summary(): { passed: number; failed: number } {
  console.log(`image: ${passed} passed, ${failed} failed`);
  return { passed, failed };
}
