// Deterministic pictures (issue 12, request field `deterministic`): for each page of
// fixtures/animated.ts (keyframes, transitions, a JS clock, random colours, a blinking caret, a
// canvas animation, an animated GIF and an APNG), 10 captures with the option are byte-identical
// PNGs, and captures without it are not (up to 10 are taken until two differ). Where the frozen
// state is known, a probe checks it (the finished transition, the GIF's first frame). One server,
// html mode, a 240x140 viewport, waitUntil load: about 100 small captures.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decode, keep, near, shoot, show, startTestServer, type TestServer } from './helpers.ts';
import { animatedFixtures, VIEWPORT, type AnimatedFixture } from './fixtures/animated.ts';

const RUNS = 10;

let srv: TestServer;
let fixtures: AnimatedFixture[];

before(async () => {
  [srv, fixtures] = await Promise.all([startTestServer(), animatedFixtures()]);
});
after(() => srv?.close());

async function capture(f: AnimatedFixture, deterministic: boolean): Promise<Buffer> {
  const r = await shoot(srv.url, { html: f.html, viewport: VIEWPORT, waitUntil: 'load', blockCookieBanners: false, deterministic, ...f.extra });
  assert.equal(r.status, 200, `${f.name}: ${show(r)}`);
  return r.body;
}

describe('deterministic: true freezes what moves', () => {
  // The fixtures are generated in before(); node:test needs the tests declared now, so by index.
  for (let i = 0; i < 8; i++) {
    test(`fixture ${i + 1}: ${RUNS} captures with the option are byte-identical; without it they differ`, async (t) => {
      const f = fixtures[i]!;
      t.diagnostic(f.name);
      const frozen: Buffer[] = [];
      for (let n = 0; n < RUNS; n++) frozen.push(await capture(f, true));
      keep(`deterministic-${i + 1}.png`, frozen[0]!);
      for (const [n, b] of frozen.entries()) assert.ok(b.equals(frozen[0]!), `${f.name}: capture ${n + 1} differs from capture 1`);
      if (f.probe) {
        const img = await decode(frozen[0]!);
        const px = img.at(f.probe.x, f.probe.y);
        assert.ok(near(px, f.probe.rgb, 12), `${f.name}: ${f.probe.why}; got ${px.join(',')} at ${f.probe.x},${f.probe.y}`);
      }

      const moving = new Set<string>();
      for (let n = 0; n < RUNS && moving.size < 2; n++) moving.add((await capture(f, false)).toString('base64'));
      assert.equal(moving.size, 2, `${f.name}: without the option, ${RUNS} captures were all identical (the fixture does not move?)`);
    });
  }
  test('there are 8 fixtures', () => assert.equal(fixtures.length, 8));
});
