// Guards for tests that feed the guard non-loopback addresses (threat model, "Testing it safely"):
// they must run inside test/security/run-in-netns.sh. assertIsolated() refuses to go on unless the
// only network interface is `lo`, so that no packet can leave the machine even if the guard is broken.
import os from 'node:os';
import { execFileSync } from 'node:child_process';

export function assertIsolated(): void {
  const ifaces = Object.keys(os.networkInterfaces());
  const links = execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).trim().split('\n').map((l) => l.split(':')[1]!.trim());
  if (process.env.EGRESS_NETNS !== '1' || links.some((l) => l !== 'lo') || ifaces.some((i) => i !== 'lo')) {
    throw new Error(`refusing to run: this test feeds non-loopback addresses and must run inside its own network namespace; use test/security/run-in-netns.sh <file> (interfaces here: ${links.join(', ')})`);
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
      if (!String((e as { stderr?: Buffer }).stderr ?? '').includes('File exists')) throw e;
    }
  }
}
