// grayscale: the page rendered in shades of grey, a render step before the page loads.
import type { Step } from '../toolkit/step.ts';

export const renderInGrey: Step = async ({ page, req, deadline }) => {
  if (!req.grayscale) return;
  await deadline.step('grayscale', page.emulateVisionDeficiency('achromatopsia'));
};
