// The egress policy: may a connection to host:port be made, and to which addresses exactly?
// Shared by the pre-navigation check (check.ts) and the proxy (proxy.ts), so both decide alike.
// Order (threat model): explicit allowlist (EGRESS_ALLOW, exact host:port, tests only) -> IP
// literal classified -> name rules -> resolve A+AAAA -> EVERY answer classified; one non-public
// answer rejects the whole name (a "mixed answer" must not win a race to the private one).
import { classifyIp } from './classifier.ts';
import { nameRuleViolation, parseAuthority, type Target } from './host.ts';
import { ResolveError, type HostResolver } from './resolver.ts';

export type Verdict =
  /** `dial`: the exact addresses the caller may connect to (already classified). */
  | { ok: true; target: Target; dial: string[]; allowlisted: boolean }
  /** blocked: the policy forbids it (400). unresolvable: no address to try (502), fail closed. */
  | { ok: false; target: Target; kind: 'blocked' | 'unresolvable'; reason: string };

export interface Policy {
  check(target: Target): Promise<Verdict>;
  /** Canonical EGRESS_ALLOW entries in effect. */
  readonly allow: readonly string[];
}

/** Canonicalises an EGRESS_ALLOW entry ("LOCALHOST:8080" -> "localhost:8080", "[::0001]:80" -> "[::1]:80"). */
export function canonicalAllowEntry(entry: string): string {
  if (!/:\d{1,5}$/.test(entry)) throw new Error(`EGRESS_ALLOW entry ${JSON.stringify(entry)} must be host:port`);
  return parseAuthority(entry, 0).origin;
}

export function createPolicy(opts: { allow: readonly string[]; resolver: HostResolver }): Policy {
  const allow = new Set(opts.allow.map(canonicalAllowEntry));

  async function allowlisted(target: Target): Promise<Verdict> {
    if (target.isIp) return { ok: true, target, dial: [target.host], allowlisted: true };
    // The fixture's name is trusted by configuration; resolve it without classifying.
    if (target.host === 'localhost') return { ok: true, target, dial: ['127.0.0.1', '::1'], allowlisted: true };
    try {
      const r = await opts.resolver.resolve(target.host);
      return { ok: true, target, dial: r.addresses, allowlisted: true };
    } catch (err) {
      return { ok: false, target, kind: 'unresolvable', reason: (err as Error).message };
    }
  }

  return {
    allow: [...allow],
    async check(target) {
      if (allow.has(target.origin)) return allowlisted(target);
      if (target.isIp) {
        const c = classifyIp(target.host);
        if (!c.allowed) return { ok: false, target, kind: 'blocked', reason: `${c.address} is not a public address: ${c.reason}` };
        return { ok: true, target, dial: [c.dial], allowlisted: false };
      }
      const bad = nameRuleViolation(target.host);
      if (bad) return { ok: false, target, kind: 'blocked', reason: `${target.host} is ${bad}` };
      let addresses: string[];
      try {
        addresses = (await opts.resolver.resolve(target.host)).addresses;
      } catch (err) {
        const msg = err instanceof ResolveError ? err.message : `DNS lookup of ${target.host} failed`;
        return { ok: false, target, kind: 'unresolvable', reason: msg };
      }
      const dial: string[] = [];
      for (const a of addresses) {
        const c = classifyIp(a);
        if (!c.allowed) return { ok: false, target, kind: 'blocked', reason: `${target.host} resolves to ${c.address}, not a public address: ${c.reason}` };
        if (!dial.includes(c.dial)) dial.push(c.dial);
      }
      return { ok: true, target, dial, allowlisted: false };
    },
  };
}
