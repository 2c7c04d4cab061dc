// The named steps of one render: each has one unique, stable name, the same in the Server-Timing
// header (`<name>;dur=<ms>;desc="<description>"`), the `step` label of the
// screenshot_step_seconds metric and the 504 render_timeout message's "(while <description>)".
// A step's description may add what it waited for (the waitUntil value, the selector); its name
// never does, so names stay few (bounded metric labels) and never repeat within one render.
// The metric has one more step, `queue` (the wait for a free render slot, before the deadline's steps).
// Each action of `actions` is a step of its own, `action-<index>`: at most ACTIONS_MAX names.
import { ACTIONS_MAX } from '../kinds/request.ts';

type ActionStep = `action-${number}`;
const ACTION_STEPS = Object.fromEntries(Array.from({ length: ACTIONS_MAX }, (_, i) => [`action-${i}`, `running actions[${i}]`])) as Record<ActionStep, string>;

const NAMED = {
  browser: 'starting the browser',
  page: 'opening a page',
  address: 'checking the target address',
  viewport: 'setting the viewport',
  emulation: 'emulating the visitor',
  env: 'setting the page environment',
  determinism: 'preparing a deterministic render',
  'cleanup-prep': 'preparing banner clean-up',
  blocking: 'preparing request blocking',
  load: 'loading the page',
  css: 'applying css',
  idle: 'waiting for network idle',
  selector: 'waiting for selector',
  'lazy-scroll': 'loading lazy content',
  'lazy-idle': 'waiting for lazy content',
  banners: 'removing cookie banners',
  js: 'running js',
  delay: 'waiting for delay',
  freeze: 'freezing the page',
  'last-look': 'looking for banners added since the clean-up',
  capture: 'capturing',
  boxes: 'measuring ignoreSelectors',
} as const;

export const STEPS: typeof NAMED & Readonly<Record<ActionStep, string>> = { ...NAMED, ...ACTION_STEPS };

export type StepName = keyof typeof STEPS;

export interface StepTiming {
  step: StepName;
  /** What the step did, for people: STEPS[step] or a more precise wording of it. */
  stage: string;
  ms: number;
  /** performance.now() when the step began: where its span starts (server/render/step-spans.ts). */
  at?: number;
}
