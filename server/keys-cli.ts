// Operator CLI for API keys, credits and link signing secrets, on the store the server uses
// (server/store: DATA_DIR, or DATABASE_URL). An entry point like main.ts, so it may use every room.
//   node --import tsx server/keys-cli.ts keys <command>   (npm run keys -- <command>)
// With the embedded store the server must be stopped first (one process at a time); with
// PostgreSQL it runs beside live replicas.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AdminError, createKey, grant, listKeys, revokeKey } from './accounts/admin.ts';
import { openAccounts } from './accounts/index.ts';
import { ConfigError, loadConfig } from './config.ts';
import { ServiceError } from './errors.ts';
import { resolveKek } from './links/kek.ts';
import { makeLink, parseOptions } from './links/make.ts';
import { LinkKeyError, rotateSigningSecret, signingKey } from './links/secrets.ts';
import { StoreInUse } from './store/index.ts';
import { canRotateWebhookSecret, rotateWebhookSecret, webhookSecretFor } from './webhooks/secrets.ts';

const USAGE = `usage: keys <command>

  create [--label <text>] [--credits <n>]   new account and key with the free allowance (FREE_CREDITS)
                                            or --credits; prints the key and its link signing secret ONCE
  create --account <acc_id> [--label <text>] another key for an existing account (rotation), no credits
  list [--all] [--json]                     keys (never the keys themselves: their first characters),
                                            accounts and spendable credits; --all includes revoked keys
  revoke <key_id>                           the key stops working at once; the account keeps its credits
  grant <acc_id|key_id> <amount> [--note <text>]
                                            add credits (a negative amount removes them)
  rotate-secret <key_id> [--grace <seconds>] a new link signing secret, printed ONCE; links signed with
                                            the old one keep working for --grace seconds (default 0)
  webhook-secret <key_id> [--rotate]        the secret that signs the key's batch webhooks (Standard
                                            Webhooks, whsec_...); --rotate makes a new one from now on
                                            (not for a key of API_KEYS under WEBHOOK_SECRET: derived)
  sign <key_id> '<options JSON>' (--expires-in <seconds> | --expires <unix time>) [--base-url <url>]
       [--secret <signing secret>]          a signed GET link for the options (docs/signed-links.md);
                                            the secret from --secret, LINK_SIGNING_SECRET or the store

Store: DATABASE_URL when set (PostgreSQL), else the embedded store in DATA_DIR (default ./data).`;

class Exit extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** Ends the command with a message; thrown so that the store is closed on the way out. */
function fail(message: string, code = 1): never {
  throw new Exit(message, code);
}

/** Where a command writes: stdout and stderr of the process, or a test's buffers. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

async function main(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      label: { type: 'string' },
      account: { type: 'string' },
      credits: { type: 'string' },
      note: { type: 'string' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      grace: { type: 'string' },
      rotate: { type: 'boolean' },
      'expires-in': { type: 'string' },
      expires: { type: 'string' },
      'base-url': { type: 'string' },
      secret: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, command, ...rest] = positionals;
  if (values.help || group !== 'keys' || !command) fail(USAGE, values.help ? 0 : 2);
  // Arguments are checked before the store is opened.
  const arity: Record<string, number> = { create: 0, list: 0, revoke: 1, grant: 2, 'rotate-secret': 1, 'webhook-secret': 1, sign: 2 };
  if (arity[command] === undefined) fail(USAGE, 2);
  if (rest.length !== arity[command]) fail(`keys ${command}: wrong number of arguments\n\n${USAGE}`, 2);
  if (command === 'grant' && !/^-?\d{1,12}$/.test(rest[1]!)) fail('keys grant: the amount must be an integer', 2);
  if (values.credits !== undefined && !/^\d{1,12}$/.test(values.credits)) fail('--credits must be a non-negative integer', 2);
  if (values.grace !== undefined && !/^\d{1,9}$/.test(values.grace)) fail('--grace must be a number of seconds', 2);
  if (command === 'sign') {
    const given = [values['expires-in'], values.expires].filter((v) => v !== undefined);
    if (given.length !== 1 || !/^\d{1,12}$/.test(given[0]!)) fail('keys sign: give --expires-in <seconds> or --expires <unix time>', 2);
  }

  // The CLI needs no browser: satisfy that check of the shared config with any executable.
  const config = loadConfig({ ...env, CHROMIUM_PATH: process.execPath });
  // Signing with a secret in hand needs no store (and works while the embedded store's server runs).
  const secretInHand = values.secret ?? env.LINK_SIGNING_SECRET;
  if (command === 'sign' && secretInHand) return void io.out(signedLink(rest, values, secretInHand));
  const accounts = await openAccounts(config, { syncEnvKeys: false, sweepIntervalMs: 0 });
  const db = accounts.db;
  try {
    switch (command) {
      case 'create': {
        const credits = values.credits !== undefined ? Number(values.credits) : config.freeCredits;
        const made = await createKey(db, { label: values.label, accountId: values.account, credits });
        const kek = resolveKek(config);
        const signingSecret = kek ? await rotateSigningSecret(db, kek, made.keyId, 0) : undefined;
        if (values.json) io.out(JSON.stringify({ ...made, signingSecret }));
        else {
          io.out(`key:     ${made.key}`);
          io.out(`key id:  ${made.keyId}`);
          io.out(`account: ${made.accountId} (${made.credits} credits)`);
          io.out(`signing secret: ${signingSecret ?? '(none: signed links need LINK_SIGNING_KEK with DATABASE_URL)'}`);
          io.err("\nThe key and the signing secret are shown only this once; the store keeps the key's SHA-256 hash and the secret sealed.");
        }
        break;
      }
      case 'rotate-secret': {
        const kek = resolveKek(config) ?? fail('signed links are off: set LINK_SIGNING_KEK (32 bytes, hex) when DATABASE_URL is set');
        const secret = await rotateSigningSecret(db, kek, rest[0]!, Number(values.grace ?? 0));
        io.out(values.json ? JSON.stringify({ keyId: rest[0], signingSecret: secret }) : `signing secret: ${secret}`);
        if (!values.json)
          io.err(
            `\nShown only this once. Links signed with the previous secret ${values.grace && values.grace !== '0' ? `keep working for ${values.grace} s` : 'no longer work'}.`,
          );
        break;
      }
      case 'webhook-secret': {
        const known = await db.query('SELECT source FROM api_keys WHERE id = $1', [rest[0]]);
        if (!known.length) fail(`no key ${rest[0]}`);
        const envSecret = config.batches.webhookSecret;
        if (values.rotate && !(await canRotateWebhookSecret(db, rest[0]!, envSecret)))
          fail(`key ${rest[0]} comes from API_KEYS: its webhook secret is derived from WEBHOOK_SECRET and turns with it`);
        const secret = values.rotate ? await rotateWebhookSecret(db, rest[0]!) : await webhookSecretFor(db, rest[0]!, envSecret);
        io.out(values.json ? JSON.stringify({ keyId: rest[0], webhookSecret: secret }) : `webhook secret: ${secret}`);
        break;
      }
      case 'sign': {
        const kek = resolveKek(config) ?? fail('signed links are off: set LINK_SIGNING_KEK (32 bytes, hex) when DATABASE_URL is set');
        const key = await signingKey(db, kek, rest[0]!);
        if (typeof key === 'string') fail(`key ${rest[0]} cannot sign links (${key})`);
        io.out(signedLink(rest, values, key.secrets[0]!));
        break;
      }
      case 'list': {
        const rows = await listKeys(db, { includeRevoked: values.all });
        if (values.json) {
          io.out(JSON.stringify(rows, null, 2));
          break;
        }
        const table = rows.map((r) => ({
          key_id: r.keyId,
          key: `${r.prefix}…`,
          label: r.label ?? '',
          account: r.accountId,
          credits: String(r.credits - r.held),
          held: String(r.held),
          created: r.createdAt.slice(0, 19).replace('T', ' '),
          status: r.revokedAt ? `revoked ${r.revokedAt.slice(0, 10)}` : 'active',
        }));
        if (!table.length) {
          io.out('no keys');
          break;
        }
        const cols = Object.keys(table[0]!) as (keyof (typeof table)[0])[];
        const width = Object.fromEntries(cols.map((c) => [c, Math.max(c.length, ...table.map((t) => t[c].length))]));
        io.out(
          cols
            .map((c) => c.padEnd(width[c]!))
            .join('  ')
            .trimEnd(),
        );
        for (const t of table)
          io.out(
            cols
              .map((c) => t[c].padEnd(width[c]!))
              .join('  ')
              .trimEnd(),
          );
        break;
      }
      case 'revoke': {
        if (!(await revokeKey(db, rest[0]!))) fail(`no active key ${rest[0]}`);
        io.out(`revoked ${rest[0]}`);
        break;
      }
      case 'grant': {
        const g = await grant(db, rest[0]!, Number(rest[1]), values.note);
        io.out(`account ${g.accountId}: ${g.credits} credits`);
        break;
      }
    }
  } finally {
    await accounts.close();
  }
}

/** `keys sign <key_id> '<options JSON>'`: the link, on one line. */
function signedLink(rest: string[], values: { 'expires-in'?: string; expires?: string; 'base-url'?: string }, secret: string): string {
  const expires = values.expires !== undefined ? Number(values.expires) : Math.floor(Date.now() / 1000) + Number(values['expires-in']);
  return makeLink({ options: parseOptions(rest[1]!), keyId: rest[0]!, secret, expires, baseUrl: values['base-url'] ?? 'http://127.0.0.1:3000' });
}

/** Runs one command (`keys ...`) with `env` as its environment; resolves to its exit code. */
export async function runKeysCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  try {
    await main(argv, env, io);
    return 0;
  } catch (e) {
    const exit = (message: string, code: number) => {
      io.err(message);
      return code;
    };
    if (e instanceof Exit) return exit(e.message, e.code);
    if (e instanceof ConfigError) return exit(`configuration error: ${e.message}`, 2);
    if (e instanceof AdminError || e instanceof StoreInUse || e instanceof LinkKeyError) return exit(e.message, 1);
    if (e instanceof ServiceError) return exit(`keys sign: ${e.message}`, 2);
    if ((e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) return exit(`${(e as Error).message}\n\n${USAGE}`, 2);
    throw e;
  }
}

// Run as a program (not imported, as the tests do).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await runKeysCli(process.argv.slice(2), process.env, { out: (l) => console.log(l), err: (l) => console.error(l) });
