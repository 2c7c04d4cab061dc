// The friendly pre-navigation check (spec §4.1 rule 8, §7; DESIGN §3 "a redirect or navigation
// reaches a blocked address"): turns a policy verdict for a URL into the domain errors the HTTP
// layer maps. It decides nothing itself: the policy (policy.ts) does, the same one the proxy uses.
import { NavigationFailed, TargetBlocked } from '../errors.ts';
import { parseTargetUrl, MalformedTarget } from './host.ts';
import type { Policy } from './policy.ts';

/**
 * Throws TargetBlocked (400 bad_request) for a non-http(s) scheme, userinfo, a non-public literal,
 * a forbidden name or any non-public DNS answer; NavigationFailed (502) when the name does not
 * resolve or the resolver fails (fail closed: no navigation either way). Returns the normalised
 * href: navigate with it, never with the raw string (threat model "Spellings").
 */
export async function checkUrl(policy: Policy, url: string): Promise<string> {
  return (await pinUrl(policy, url)).href;
}

/** A URL the server itself may call (a webhook): its normalised href and the addresses it may dial, checked. */
export interface PinnedUrl {
  href: string;
  host: string;
  port: number;
  /** Dial only these: they are the answers the policy classified (no second, unguarded lookup). */
  dial: string[];
}

/** checkUrl, also answering the checked addresses to connect to (the same errors). */
export async function pinUrl(policy: Policy, url: string): Promise<PinnedUrl> {
  let parsed: ReturnType<typeof parseTargetUrl>;
  try {
    parsed = parseTargetUrl(url);
  } catch (e) {
    if (e instanceof MalformedTarget) throw new TargetBlocked(e.message);
    throw e;
  }
  const v = await policy.check(parsed.target);
  if (v.ok) return { href: parsed.href, host: v.target.host, port: v.target.port, dial: v.dial };
  const where = `${new URL(parsed.href).protocol}//${v.target.origin}`;
  if (v.kind === 'blocked') throw new TargetBlocked(`target ${where} is blocked: ${v.reason}`);
  throw new NavigationFailed(`target ${where} is unreachable: ${v.reason}`);
}
