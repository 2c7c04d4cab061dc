// Guards for tests that feed the guard non-loopback addresses (threat model, "Testing it safely"):
// they must run inside test/security/run-in-netns.sh. assertIsolated() refuses to go on unless the
// only network interfaces are `lo` (and veth pairs with both ends inside the namespace), so that no
// packet can leave the machine even if the guard is broken.
import { execFileSync } from 'node:child_process';

export function assertIsolated(): void {
  const lines = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).trim().split('\n');
  const links = lines.map((l) => l.split(':')[1]!.trim());
  const names = new Set(links.map((l) => l.split('@')[0]));
  // Allowed: lo, and veth pairs whose BOTH ends are in this namespace ("a@b" with b listed here;
  // a peer elsewhere shows as "a@ifN ... link-netnsid").
  const escapes = lines.filter((line, i) => {
    const [name, peer] = links[i]!.split('@');
    if (name === 'lo') return false;
    return !(peer && names.has(peer) && !line.includes('link-netns'));
  });
  if (process.env.EGRESS_NETNS !== '1' || escapes.length > 0) {
    throw new Error(
      `refusing to run: this test feeds non-loopback addresses and must run inside its own network namespace; use test/security/run-in-netns.sh <file> (interfaces here: ${links.join(', ')})`,
    );
  }
}

/** Adds addresses to `lo` inside the namespace (a /32 or /128 each), so listeners can bind them. */
export function addLoopbackAddresses(addresses: string[]): void {
  assertIsolated();
  for (const a of addresses) {
    const v6 = a.includes(':');
    try {
      execFileSync('ip', [...(v6 ? ['-6'] : []), 'addr', 'add', `${a}/${v6 ? 128 : 32}`, 'dev', 'lo', ...(v6 ? ['nodad'] : [])], { stdio: 'pipe' });
    } catch (e) {
      if (!/File exists|already assigned/.test(String((e as { stderr?: Buffer }).stderr ?? ''))) throw e;
    }
  }
}
