// The secrets that sign a key's webhooks (Standard Webhooks: `whsec_` + base64 of random bytes).
// One per key, made on first use; `npm run keys webhook-secret` shows and rotates them. The keys
// of API_KEYS are signed with WEBHOOK_SECRET when it is set (their operator configures it the
// same way as the keys), and get a stored secret of their own otherwise.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../store/index.ts';

export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** The secret that signs this key's webhooks now. */
export async function webhookSecretFor(q: Queryable, keyId: string, envSecret: string | null): Promise<string> {
  if (envSecret) {
    const env = await q.query("SELECT 1 FROM api_keys WHERE id = $1 AND source = 'env'", [keyId]);
    if (env.length) return envSecret;
  }
  await q.query('INSERT INTO webhook_secrets (key_id, secret) VALUES ($1, $2) ON CONFLICT (key_id) DO NOTHING', [keyId, newWebhookSecret()]);
  const rows = await q.query<{ secret: string }>('SELECT secret FROM webhook_secrets WHERE key_id = $1', [keyId]);
  return rows[0]!.secret;
}

/** A new secret for the key, from now on (events already signed keep their signature). */
export async function rotateWebhookSecret(q: Queryable, keyId: string): Promise<string> {
  const secret = newWebhookSecret();
  await q.query(
    'INSERT INTO webhook_secrets (key_id, secret) VALUES ($1, $2) ON CONFLICT (key_id) DO UPDATE SET secret = EXCLUDED.secret, created_at = now()',
    [keyId, secret],
  );
  return secret;
}
