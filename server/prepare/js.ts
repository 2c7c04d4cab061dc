// `js`: the caller's script, run once in the top document's main world as the body of an async
// function, so that `await` and `return` work and a returned promise is awaited. Runtime.evaluate
// compiles it (./evaluate.ts), so a page whose CSP forbids every script still runs it. A script
// that never ends (a busy loop, a promise that never settles) holds its step until the render
// budget ends: 504 render_timeout naming the step, and the pool closes the page's context, which
// stops it (server/pool/slot-render.ts). The source is never logged; errors quote the error, not it.
import { traitedStep } from '../toolkit/step-shape.ts';
import type { StepLabel } from '../toolkit/step-names.ts';
import { evaluateInPage } from './evaluate.ts';

/** The source run: the script inside an async arrow; the newline before the closing brace ends a trailing `//` comment. */
export const asFunctionBody = (js: string) => `(async () => {${js}\n})()`;

const JS: StepLabel = { name: 'js', description: 'running js' };

export const runJs = traitedStep({ times: [JS], touchesPage: (req) => req.js !== undefined }, async ({ client, req, deadline, hops }) => {
  if (req.js === undefined) return;
  const js = req.js;
  await deadline.step(JS, () => hops.guard(evaluateInPage(client, asFunctionBody(js), 'js')));
});
