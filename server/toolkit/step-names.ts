// The named steps of one render: each has one unique, stable name, the same in the Server-Timing
// header (`<name>;dur=<ms>;desc="<description>"`), the `step` label of the
// screenshot_step_seconds metric and the 504 render_timeout message's "(while <description>)".
// A step's description may add what it waited for (the waitUntil value, the selector); its name
// never does, so names stay few (bounded metric labels) and never repeat within one render.
// The metric has one more step, `queue` (the wait for a free render slot, before the deadline's steps).
// A step's label is written beside the step (its room's index.ts, or the pipeline for its own); the
// list of every name, which Server-Timing's documentation and the tests read, is gathered from the
// pipeline's steps (STEP_LABELS, server/render/pipeline.ts), so a new step edits no list here.

/** A named step: its name, and what it does in words (504 messages, Server-Timing's desc). */
export interface StepLabel {
  readonly name: string;
  readonly description: string;
}

export interface StepTiming {
  step: string;
  /** What the step did, for people: its label's description or a more precise wording of it. */
  stage: string;
  ms: number;
  /** performance.now() when the step began: where its span starts (server/render/step-spans.ts). */
  at?: number;
}
