// A valid capture's whole verdict, shared by the properties that send one (valid, unknown fields,
// deterministic): its oracle (size, type, magic bytes, alpha, strips), content-disposition, the
// billing headers where the implementation sends them, and what every answer keeps.
import type { Observed } from '../engine/exchange.ts';
import { decodeImage } from '../engine/image.ts';
import { judge } from '../engine/verdict.ts';
import type { Check, Expectation, HttpRequestSpec } from '../model/model.ts';
import { everyAnswer } from './property.ts';
import type { shotOf } from './valid.ts';

export const body = (b: Record<string, unknown>): HttpRequestSpec => ({ body: b });

/** The billing headers, where the implementation sends them (spec §1: one credit per capture, none when cached). */
function billing(res: Observed): Check[] {
  const charged = res.headers['x-credits-charged'];
  if (charged === undefined || res.status !== 200) return [];
  const cached = res.headers['x-cache'] === 'hit';
  return [
    { name: 'one credit (none when cached)', pass: charged === (cached ? '0' : '1'), detail: `x-credits-charged ${charged}${cached ? ' on a cache hit' : ''}` },
  ];
}

/** A valid request's whole verdict: its oracle (size, type, magic bytes, alpha, strips), content-disposition, billing. */
export async function judgeShot(
  res: Observed,
  shot: ReturnType<typeof shotOf>,
  label = '',
): Promise<{ checks: Check[]; image?: Awaited<ReturnType<typeof decodeImage>> }> {
  const open = shot.sizes.length > 1;
  const expect: Expectation = {
    ...shot.expect,
    image: open ? { ...shot.expect.image!, width: undefined, height: undefined } : shot.expect.image,
    headers: { 'content-disposition': { matches: '^inline\\b' } },
  };
  const j = await judge(expect, res);
  const checks = [...j.checks, ...billing(res), ...everyAnswer(res)];
  if (open && j.image) {
    const ok = shot.sizes.some((s) => s.width === j.image!.width && s.height === j.image!.height);
    checks.push({
      name: 'size (a fractional viewport side)',
      pass: ok,
      detail: `${j.image.width}x${j.image.height}, one of ${shot.sizes.map((s) => `${s.width}x${s.height}`).join(', ')} (either side rounded, times the scale)`,
    });
  }
  return { checks: checks.map((k) => ({ ...k, name: label + k.name })), image: j.image };
}
