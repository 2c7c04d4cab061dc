// A server's own record of what it did, read from GET /metrics: tests ask it whether a render began
// or how one ended rather than judging by how long an answer took (a busy machine makes time lie).

/** The counts of `screenshot_render_seconds` (renders begun and ended) by outcome: `ok`, `wait_timed_out` or the error code. */
export async function renderOutcomes(baseUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^screenshot_render_seconds_count\{outcome="([^"]+)"\} (\d+)$/gm)) out.set(m[1]!, Number(m[2]));
  return out;
}

/** Renders that ended with `outcome`, or every render whatever its outcome. */
export async function renderCount(baseUrl: string, outcome?: string): Promise<number> {
  const all = await renderOutcomes(baseUrl);
  return outcome === undefined ? [...all.values()].reduce((a, b) => a + b, 0) : (all.get(outcome) ?? 0);
}

/** A gauge of the server's /metrics, e.g. `screenshot_renders_in_flight`. */
export async function gauge(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Renders the pool has taken: running, or queued for a slot. */
export async function rendersHeld(baseUrl: string): Promise<number> {
  return (await gauge(baseUrl, 'screenshot_renders_in_flight')) + (await gauge(baseUrl, 'screenshot_queue_depth'));
}
