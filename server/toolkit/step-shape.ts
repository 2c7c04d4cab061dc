// The one shape of a render step. A render (server/render/pipeline.ts) is an ordered list of
// steps, each `(ctx) => Promise<Disposable | void>`:
// - a step the request does not ask for returns at once, without a call to the page or the browser
//   (a request that asks for nothing pays nothing for the steps it does not use);
// - what a step leaves in place for the rest of the render (listeners, overrides, interception) it
//   returns as a Disposable; the pipeline disposes them all in reverse order, once, whatever happens;
// - a step that finds something a later step or the answer needs writes it into the context: its
//   type names the part it reads or writes (`Step<PageContext & { targetStatus?: number }>`), and
//   the pipeline's context is the sum of those parts, so a room never imports another room to
//   share a value.
// A step runs its work under the render's Deadline, as a named step (./step-names.ts: its label,
// written beside it and listed in its `times`), and the waits
// under Waits (./waits.ts: cut before the deadline with captureOnTimeout).
import type { CDPSession, Page } from 'puppeteer-core';
import type { ScreenshotRequest } from '../kinds/request.ts';
import type { Deadline } from './deadline.ts';
import type { StepLabel } from './step-names.ts';
import type { HopGuard } from './hops.ts';
import type { Waits } from './waits.ts';

/** What every step of a render sees. */
export interface PageContext {
  /** The render's own page, in a fresh isolated context (./slot.ts). */
  readonly page: Page;
  /** The page's CDP session. */
  readonly client: CDPSession;
  readonly req: ScreenshotRequest;
  /** url mode: the address the egress guard checked, normalised (never the raw string); undefined in html mode. */
  readonly url: string | undefined;
  readonly deadline: Deadline;
  readonly waits: Waits;
  /** Turns a main-frame hop the egress guard refuses into 400 (./hops.ts). */
  readonly hops: HopGuard;
}

/**
 * What a step says of itself, for the steps before it to read (they get the steps after them as
 * `later`): the clean-up asks whether the next step that touches the page is its own last look.
 */
export interface StepTraits {
  /** Whether, for this request, it does anything to the page or lets the page run on (a wait). A step that does not say is taken to. */
  readonly touchesPage?: (req: ScreenshotRequest) => boolean;
  /** It is a last look for banners added since the clean-up (server/cleanup/steps.ts). */
  readonly lastLook?: true;
  /** The named steps it runs under the deadline (Server-Timing, the step metric), besides the waits (./waits.ts). */
  readonly times?: readonly StepLabel[];
}

export type Step<C extends PageContext = PageContext> = ((ctx: C, later: readonly StepTraits[]) => Promise<Disposable | void>) & StepTraits;

/** A step that says what it is (StepTraits). */
export const traitedStep = <C extends PageContext>(traits: StepTraits, run: (ctx: C, later: readonly StepTraits[]) => Promise<Disposable | void>): Step<C> =>
  Object.assign(run, traits);

/** The first of the steps to come that touches the page for this request. */
export const firstToTouch = (later: readonly StepTraits[], req: ScreenshotRequest): StepTraits | undefined => later.find((s) => s.touchesPage?.(req) ?? true);

/** A Disposable from a function (a step's clean-up). */
export const disposer = (dispose: () => void): Disposable => ({ [Symbol.dispose]: dispose });

/** Runs the steps in order, each once; what they leave is put on `stack` (disposed by its owner, in reverse order). */
export async function runSteps<C extends PageContext>(ctx: C, steps: readonly Step<C>[], stack: DisposableStack): Promise<void> {
  for (const [i, step] of steps.entries()) {
    const left = await step(ctx, steps.slice(i + 1));
    if (left) stack.use(left);
  }
}
