// Billing a comparison: each capture rendered costs one credit, a cached one nothing, the
// comparison nothing, and a failure nothing (spec §1 billing). A compare request with a baseline
// request renders two captures; the caller gets one answer, so both are billed or neither: each
// capture's reservation is held here instead of committed (server/service.ts), and the route
// commits them all once the comparison is done, or releases them all when anything failed,
// including the other capture.
import type { Accounts, Committed, Reservation } from './index.ts';

export class JointBill {
  private readonly held: Reservation[] = [];
  private settled = false;

  constructor(private readonly accounts: Accounts) {}

  /** Takes a capture's reservation; what it will cost when committed (the balance is known then). */
  hold(r: Reservation): Committed {
    if (this.settled) throw new Error('a settled bill cannot hold another reservation');
    this.held.push(r);
    return { charged: 1, remaining: Number.NaN };
  }

  /** Spends every held credit; what was charged in all and the balance after. */
  async commit(): Promise<{ charged: number; remaining: number }> {
    this.settled = true;
    let charged = 0;
    let remaining: number | undefined;
    for (const r of this.held.splice(0)) {
      const c = await this.accounts.commit(r);
      charged += c.charged;
      remaining = c.remaining;
    }
    return { charged, remaining: remaining ?? Number.NaN };
  }

  /** Gives every held credit back (any failure). */
  async release(): Promise<void> {
    this.settled = true;
    await Promise.all(this.held.splice(0).map((r) => this.accounts.release(r)));
  }
}
