// One delivery of a webhook event: signed as Standard Webhooks says (headers webhook-id,
// webhook-timestamp, webhook-signature over `id.timestamp.body`), POSTed to the URL the egress
// guard checked just now, to the very addresses it classified (the connection's lookup answers
// them; no other DNS lookup is made), so that a name turned private since submission is refused.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { PinnedUrl } from '../egress/index.ts';
import { REQUEST_HEADER } from '../kinds/headers.ts';

export interface WebhookEvent {
  /** The event's id: the same on every redelivery (webhook-id), so that receivers drop duplicates. */
  id: string;
  type: 'capture.succeeded' | 'capture.failed' | 'batch.completed';
  data: Record<string, unknown>;
}

export interface DeliveryResult {
  /** The receiver's HTTP status; undefined when no answer came (refused, timed out). */
  status?: number;
  ok: boolean;
  error?: string;
}

export const DELIVERY_TIMEOUT_MS = 10_000;

/** The body and headers of one attempt (the timestamp is the attempt's: receivers check it is recent). */
export function signedEvent(e: WebhookEvent, secret: string, now = new Date()): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ type: e.type, timestamp: now.toISOString(), data: e.data });
  return {
    body,
    headers: {
      [REQUEST_HEADER.contentType]: 'application/json',
      'webhook-id': e.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(e.id, now, body),
    },
  };
}

export function post(pinned: PinnedUrl, body: string, headers: Record<string, string>, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<DeliveryResult> {
  const url = new URL(pinned.href);
  const address = pinned.dial[0]!;
  const lookup: LookupFunction = (_host, opts, cb) => {
    const family = address.includes(':') ? 6 : 4;
    if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else cb(null, address, family);
  };
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = mod.request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, timeout: timeoutMs, agent: false },
      (res) => {
        res.resume(); // the answer's body is not read
        res.on('end', () => resolve({ status: res.statusCode, ok: (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300 }));
        res.on('error', (e) => resolve({ status: res.statusCode, ok: false, error: e.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => resolve({ ok: false, error: e.message }));
    req.end(body);
  });
}
