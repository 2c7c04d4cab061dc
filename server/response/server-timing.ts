// The Server-Timing value (W3C Server Timing) of a render: one metric per step, named as in
// STEP_LABELS, server/render/pipeline.ts (unique per render, the same names as the step metric's labels).
import type { StepTiming } from '../toolkit/step-names.ts';

export function serverTiming(timings: readonly StepTiming[]): string {
  return timings.map(({ step, stage, ms }) => `${step};dur=${ms.toFixed(1)};desc="${stage.replace(/["\\]/g, '')}"`).join(', ');
}
