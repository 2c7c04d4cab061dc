// properties.malformed: exactly one known field malformed (its variants read from the schema,
// fields.ts) in a small valid body: 400 bad_request naming that field, and nothing charged.
import fc from 'fast-check';
import { judge } from '../engine/verdict.ts';
import type { Check } from '../model/model.ts';
import { fieldsFor, malformedOf, type Malformed } from './fields.ts';
import { everyAnswer, type Property } from './property.ts';
import { send } from './send.ts';
import { body } from './shot.ts';

/** A cheap valid request for the balance reads: one small capture. */
const TINY = body({ html: '<!doctype html><body style="margin:0;background:#20a040"></body>', viewport: { width: 16, height: 16 } });

/** A valid base the malformed field goes into: small, cheap, never waiting. */
const base = fc.record({
  viewport: fc.record({ width: fc.integer({ min: 1, max: 64 }), height: fc.integer({ min: 1, max: 64 }) }),
  format: fc.constantFrom('png', 'jpeg', 'webp'),
  fullPage: fc.boolean(),
  omitBackground: fc.boolean(),
});

type Base = { viewport: { width: number; height: number }; format: string; fullPage: boolean; omitBackground: boolean };

/** spec §4.1 rule 7, §7 row 3: a quality in range is malformed with png (or no format). */
const qualityWithPng = fc
  .tuple(fc.constantFrom(1, 80, 100, 55.5), fc.constantFrom('png', undefined))
  .map(([value, format]): Malformed & { format?: string } => ({
    path: ['quality'],
    value,
    what: `with format ${format ?? '(none)'}`,
    names: 'quality',
    format,
  }));

function malformedBody(b: Base, m: Malformed & { format?: string }): Record<string, unknown> {
  const out: Record<string, unknown> = { html: { $fixture: 'plain' }, ...b, viewport: { ...b.viewport } };
  const field = m.path[0]!;
  if (field === 'url') delete out.html;
  if (field === 'quality') {
    out.format = 'format' in m ? m.format : 'jpeg';
    if (out.format === undefined) delete out.format;
  }
  if (m.path.length === 1) out[field] = m.value;
  else {
    const parent = (out[field] ?? {}) as Record<string, unknown>;
    if (m.value === undefined) delete parent[m.path[1]!];
    else parent[m.path[1]!] = m.value;
    out[field] = parent;
  }
  // A malformed viewport side with an extension that needs a url, and the like, are not drawn: the
  // base sends nothing beyond the spec, so exactly one field is wrong.
  return out;
}

export const malformed: Property = {
  id: 'malformed',
  must: 'The service MUST answer a request with exactly one malformed known field with 400 bad_request whose message names that field, and charge nothing for it.',
  rules: ['2.1/rule-3', '7/row-4', '7/row-2', '7/row-3', '2.4/failure-body', '7/failure-body', '1/billing-failed'],
  share: 1.6,
  readsBalance: true,
  async start(ctx) {
    const fields = fieldsFor(ctx.declared);
    let balance: number | undefined;
    const read = async (): Promise<{ remaining?: number; charged: number; checks: Check[] }> => {
      const res = await send(ctx, TINY);
      const r = res.headers['x-credits-remaining'];
      return {
        remaining: r === undefined ? undefined : Number(r),
        charged: Number(res.headers['x-credits-charged'] ?? 1),
        checks: everyAnswer(res, 'balance read: '),
      };
    };
    if (ctx.ownKey) balance = (await read()).remaining;
    return {
      arbitrary: fc.record({
        base,
        bad: fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...fields).chain(malformedOf) }, { weight: 1, arbitrary: qualityWithPng }),
      }),
      async trial({ base: b, bad }) {
        const req = body(malformedBody(b, bad));
        const res = await send(ctx, req);
        const leaf = bad.names.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        const j = await judge({ status: 400, error: 'bad_request', message: `\\b${leaf}\\b` }, res);
        const checks = [...j.checks.map((k) => ({ ...k, name: `${bad.path.join('.')} ${bad.what}: ${k.name}` })), ...everyAnswer(res)];
        if (balance !== undefined) {
          const after = await read();
          checks.push(...after.checks);
          if (after.remaining !== undefined) {
            const want = balance - after.charged;
            checks.push({
              name: 'costs nothing (balance before and after)',
              pass: after.remaining === want,
              detail: `x-credits-remaining ${balance} before, ${after.remaining} after it and one ${after.charged}-credit capture (expected ${want})`,
            });
            balance = after.remaining;
          }
        }
        return { requests: [req], checks, responses: [res] };
      },
    };
  },
};
