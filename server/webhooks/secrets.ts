// The secrets that sign a key's webhooks (Standard Webhooks: `whsec_` + base64 of the key bytes).
// Two tenants never share one, so that a receiver of one never accepts a signed event of another's
// batch:
// - a key of API_KEYS, when WEBHOOK_SECRET is set: HMAC-SHA256 under WEBHOOK_SECRET's bytes of
//   "webhook-secret:" + the key's id. The id is derived from the key's hash (accounts/admin.ts),
//   so every replica and every restart derives the same secret with nothing stored, and the key
//   itself never enters it. Rotating it means rotating WEBHOOK_SECRET (every such key at once).
// - any other key (npm run keys, the development key, API_KEYS without WEBHOOK_SECRET): random
//   bytes stored on first use; `npm run keys webhook-secret` shows and rotates them.
// The key that made a batch is stored with it (batches.key_id): each delivery, a retry after a
// restart too, asks for that key's secret at the time it signs.
import { createHmac, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/index.ts';

export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** The bytes a Standard Webhooks secret stands for (what its libraries sign with). */
const secretBytes = (secret: string): Buffer => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

/** The secret of one key of API_KEYS, derived from WEBHOOK_SECRET and the key's id. */
export function derivedWebhookSecret(envSecret: string, keyId: string): string {
  return `whsec_${createHmac('sha256', secretBytes(envSecret)).update(`webhook-secret:${keyId}`, 'utf8').digest('base64')}`;
}

/** Whether this key's secret is derived (a key of API_KEYS with WEBHOOK_SECRET set) rather than stored. */
async function isDerived(q: Queryable, keyId: string, envSecret: string | null): Promise<boolean> {
  return envSecret !== null && (await q.query("SELECT 1 FROM api_keys WHERE id = $1 AND source = 'env'", [keyId])).length > 0;
}

/** The secret that signs this key's webhooks now. */
export async function webhookSecretFor(q: Queryable, keyId: string, envSecret: string | null): Promise<string> {
  if (envSecret && (await isDerived(q, keyId, envSecret))) return derivedWebhookSecret(envSecret, keyId);
  await q.query('INSERT INTO webhook_secrets (key_id, secret) VALUES ($1, $2) ON CONFLICT (key_id) DO NOTHING', [keyId, newWebhookSecret()]);
  const rows = await q.query<{ secret: string }>('SELECT secret FROM webhook_secrets WHERE key_id = $1', [keyId]);
  return rows[0]!.secret;
}

/** Whether rotateWebhookSecret can turn this key's secret (a derived one turns with WEBHOOK_SECRET only). */
export const canRotateWebhookSecret = async (q: Queryable, keyId: string, envSecret: string | null): Promise<boolean> =>
  !(await isDerived(q, keyId, envSecret));

/** A new secret for the key, from now on (events already signed keep their signature). */
export async function rotateWebhookSecret(q: Queryable, keyId: string): Promise<string> {
  const secret = newWebhookSecret();
  await q.query(
    'INSERT INTO webhook_secrets (key_id, secret) VALUES ($1, $2) ON CONFLICT (key_id) DO UPDATE SET secret = EXCLUDED.secret, created_at = now()',
    [keyId, secret],
  );
  return secret;
}
