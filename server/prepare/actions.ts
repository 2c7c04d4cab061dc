// `actions`: clicks, hovers, typing, key presses, scrolls and waits, run in order, each one named
// step of the render (`action-<i>`, described `actions[i] (kind)`) under the one deadline (spec
// §4.1 rule 6): a step that overruns the budget is a 504 naming it. Input goes through puppeteer's
// mouse and keyboard (real input events, as a user's), so whatever it makes the page load goes
// through the egress guard like any other request, and a main-frame hop it causes is checked
// (hops.guard: 400 naming a blocked one). An element that does not exist is 400
// selector_not_found naming the action; selectors are never quoted back.
import type { CDPSession, ElementHandle, KeyInput, Page } from 'puppeteer-core';
import { badRequest, RenderFailed, SelectorNotFound, ServiceError } from '../errors.ts';
import { sleep, type Deadline } from '../toolkit/deadline.ts';
import { traitedStep } from '../toolkit/step-shape.ts';
import type { StepLabel } from '../toolkit/step-names.ts';
import { ACTIONS_MAX } from '../kinds/request.ts';
import { evaluateInPage } from './evaluate.ts';
import { ACTION_KINDS, type ActionKind } from './fields.ts';

/** How often waitForFunction asks the page again. */
const POLL_MS = 100;
/** puppeteer's words for an element that is there but cannot be pointed at (no box, hidden, gone). */
const NO_BOX = /not clickable|not visible|detached|not an (HTML)?Element|no bounding box|zero size/i;

type Action = Record<string, unknown>;

export function kindOf(action: Action): ActionKind {
  const kind = ACTION_KINDS.find((k) => k in action);
  if (!kind) throw new Error('an action without a kind passed validation'); // the schema's oneOf
  return kind;
}

/** Each action of `actions` is a named step of its own, `action-<index>`: at most ACTIONS_MAX names. */
const ACTION_STEPS: readonly StepLabel[] = Array.from({ length: ACTIONS_MAX }, (_, i) => ({ name: `action-${i}`, description: `running actions[${i}]` }));

export const runActions = traitedStep(
  { times: ACTION_STEPS, touchesPage: (req) => (req.actions?.length ?? 0) > 0 },
  async ({ page, client, req, deadline, hops }) => {
    for (const [i, action] of (req.actions ?? []).entries()) {
      const kind = kindOf(action as Action);
      const field = `actions[${i}].${kind}`;
      const work = run(page, client, action as Action, kind, field, deadline).catch((e: unknown) => {
        // puppeteer's own errors may quote the selector (messages never do): only their kind goes on.
        throw e instanceof ServiceError ? e : new RenderFailed(`actions[${i}] (${kind}) failed in the browser (${e instanceof Error ? e.name : 'error'})`);
      });
      await deadline.step(ACTION_STEPS[i]!, () => hops.guard(work), `actions[${i}] (${kind})`);
    }
  },
);

async function run(page: Page, client: CDPSession, action: Action, kind: ActionKind, field: string, deadline: Deadline): Promise<void> {
  const arg = action[kind];
  switch (kind) {
    case 'click':
      return withElement(page, client, String(arg), field, (el) => el.click());
    case 'hover':
      return withElement(page, client, String(arg), field, (el) => el.hover());
    case 'type':
      return withElement(page, client, String(arg), field, (el) => el.type(String(action.text ?? '')));
    case 'scrollTo':
      return withElement(page, client, String(arg), field, (el) =>
        el.evaluate((e) => e.scrollIntoView({ block: 'start', inline: 'nearest', behavior: 'instant' })),
      );
    case 'press':
      return press(page, String(arg));
    case 'waitForSelector':
      await checkSelector(client, String(arg), field);
      await page.waitForSelector(String(arg), { timeout: 0 });
      return;
    case 'waitForHidden':
      await checkSelector(client, String(arg), field);
      await page.waitForSelector(String(arg), { hidden: true, timeout: 0 });
      return;
    case 'waitForFunction':
      return pollUntilTruthy(client, String(arg), field, deadline);
    case 'wait':
      return sleep(Number(arg));
  }
}

/** A selector the page cannot parse is a 400 naming the field, before anything is looked up. */
async function checkSelector(client: CDPSession, selector: string, field: string): Promise<void> {
  const probe = `(() => { try { document.createDocumentFragment().querySelector(${JSON.stringify(selector)}); return true; } catch { return false; } })()`;
  const r = await evaluateInPage(client, probe, field, true);
  if (r.value !== true) throw badRequest(`${field} must be a valid CSS selector`);
}

/** The first element matching `selector`, handed to `act`; none, or one without a box, is selector_not_found naming the action. */
async function withElement(
  page: Page,
  client: CDPSession,
  selector: string,
  field: string,
  act: (el: ElementHandle<Element>) => Promise<unknown>,
): Promise<void> {
  await checkSelector(client, selector, field);
  const el = await page.$(selector);
  if (!el) throw new SelectorNotFound('matches no element', field);
  try {
    await act(el);
  } catch (e) {
    if (e instanceof Error && NO_BOX.test(e.message)) throw new SelectorNotFound('matches an element with no rendered box (hidden or zero size)', field);
    throw e;
  } finally {
    await el.dispose().catch(() => {});
  }
}

/** `Enter`, `a`, `Shift+Tab`, `Control++`: the modifiers held down around one key press. */
async function press(page: Page, combo: string): Promise<void> {
  const parts = combo.split(/\+(?=.)/) as KeyInput[];
  const key = parts.pop()!;
  for (const m of parts) await page.keyboard.down(m);
  await page.keyboard.press(key);
  for (const m of parts.reverse()) await page.keyboard.up(m);
}

/**
 * Asks the page every POLL_MS until the expression is truthy. Polled from here, not by a timer in
 * the page: page timers may be virtual (deterministic) or replaced by the page, and the CSP may
 * forbid the eval a page-side poller would need.
 */
async function pollUntilTruthy(client: CDPSession, expression: string, field: string, deadline: Deadline): Promise<void> {
  const test = `(async () => !!(await (${expression}\n)))()`;
  while (deadline.remaining() > 0) {
    if ((await evaluateInPage(client, test, field, true)).value === true) return;
    await sleep(POLL_MS);
  }
}
