// A process (not a test) that reserves credits and then waits to be killed, so that
// the tests can crash a real process between reserve and commit.
//   node --import tsx test/support/crash-child.ts <json: {config, key, reserve, leaseSeconds}>
// Prints `reserved <id>` per reservation, then `ready`.
import { openAccounts, type AccountsConfig } from '../../server/accounts/index.ts';

const { config, key, reserve, leaseSeconds } = JSON.parse(process.argv[2] ?? '{}') as {
  config: AccountsConfig;
  key: string;
  reserve: number;
  leaseSeconds?: number;
};
const accounts = await openAccounts(config, { syncEnvKeys: false, sweepAtStart: false, sweepIntervalMs: 0, leaseSeconds });
const account = await accounts.authenticate(key);
if (!account) throw new Error('crash-child: the key does not authenticate');
for (let i = 0; i < reserve; i++) {
  const r = await accounts.reserve(account);
  console.log(`reserved ${r.id}`);
}
console.log('ready');
setInterval(() => {}, 1 << 30); // wait for SIGKILL
