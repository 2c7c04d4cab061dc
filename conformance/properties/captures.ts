// The properties of valid captures judged one by one: every valid request gets the picture it asks
// for (valid), and a deterministic request the same bytes twice (deterministic, an extension).
import { FIXTURE_NAME } from '../pairwise/fixture.ts';
import { everyAnswer, type Property } from './property.ts';
import { send } from './send.ts';
import { body, judgeShot } from './shot.ts';
import { shotOf, validDraft } from './valid.ts';

export const valid: Property = {
  id: 'valid',
  must: 'The service MUST answer every valid request with 200 and the picture it asks for: the exact size, type, magic bytes and alpha, every strip of the fixture as the spec puts it, content-disposition inline, one credit (none when cached).',
  rules: [
    '2.3/success',
    '2.3/content-type',
    '2.3/content-disposition',
    '2.2/exact-frame',
    '2.2/bounds',
    '8/viewport-size',
    '8/scale',
    '8/quality',
    '8/hideSelectors',
    '1/billing-success',
  ],
  share: 1.6,
  async start(ctx) {
    const arbitrary = validDraft({ url: ctx.env.fixtureOrigins.length > 0, declared: ctx.declared });
    return {
      arbitrary,
      async trial(d) {
        const shot = shotOf(d);
        const req = body(shot.body);
        const res = await send(ctx, req);
        return { requests: [req], checks: (await judgeShot(res, shot)).checks, responses: [res] };
      },
    };
  },
};

export const deterministic: Property = {
  id: 'deterministic',
  must: 'The service MUST answer a deterministic request twice with the same bytes.',
  rules: ['X/deterministic'],
  share: 0.4,
  skip: (ctx) => (ctx.declared?.has('deterministic') ? null : "the implementation's OpenAPI document does not declare deterministic (GET /openapi.json)"),
  async start(ctx) {
    return {
      arbitrary: validDraft({ url: false, declared: ctx.declared }).map((d) => ({ ...d, waitForSelector: null, ext: { ...d.ext, deterministic: true } })),
      async trial(d) {
        const shot = shotOf(d);
        const req = body({ ...shot.body, html: { $fixture: FIXTURE_NAME } });
        const a = await send(ctx, req);
        const b = await send(ctx, req);
        const checks = [...(await judgeShot(a, shot)).checks, ...everyAnswer(b, 'second: ')];
        checks.push({
          name: 'the same bytes twice',
          pass: a.status === 200 && b.status === 200 && a.body.equals(b.body),
          detail: `${a.body.length} and ${b.body.length} bytes`,
        });
        return { requests: [req], checks, responses: [a, b] };
      },
    };
  },
};
