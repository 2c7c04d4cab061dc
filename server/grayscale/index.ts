import { traitedStep } from '../toolkit/step-shape.ts';
import type { StepLabel } from '../toolkit/step-names.ts';

const GREY: StepLabel = { name: 'grayscale', description: 'rendering in grey' };

export const renderInGrey = traitedStep({ times: [GREY], touchesPage: (req) => req.grayscale }, async ({ page, req, deadline }) => {
  if (!req.grayscale) return;
  await deadline.step(GREY, page.emulateVisionDeficiency('achromatopsia'));
});
