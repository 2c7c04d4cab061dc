// failOnTargetError: a capture of the target's own error page (a 404, a 503 maintenance page) is
// rarely the picture a caller wants to pay for or to cache. With the option, the render stops as
// soon as the main document has loaded with a 4xx or 5xx status (after redirects: the status of
// the page the browser shows, the x-target-status a capture would carry) and answers 424
// target_error naming it, not billed (spec §1: failures never are). 424 Failed Dependency: the
// request and the service were fine; what the capture depends on, the target, failed. Not 502
// navigation_failed, which says the target could not be reached at all.
import { TargetError } from '../errors.ts';
import type { PageContext, Step } from '../toolkit/step-shape.ts';

/** The render step right after the load: reads the main document's status, as the load step found it. */
export const checkTargetStatus: Step<PageContext & { readonly targetStatus?: number }> = async ({ req, targetStatus: status }) => {
  if (req.failOnTargetError && req.url !== undefined && status !== undefined && status >= 400) throw new TargetError(status);
};
