// A batch as GET /v1/batches/{id} answers it (docs/batches.md), on the page: its counts, each item
// as it lands (index, state, the status and error code the synchronous call would have answered,
// its picture as a thumbnail) and the webhook's delivery attempts. Items are kept by index and
// updated in place, so a poll neither flickers nor fetches a picture twice.
import { $, el } from './dom.js';

const FINAL = new Set(['done', 'cancelled']);
/** Nothing is left to cancel: done, or cancelled already. */
export const isFinal = (batch) => FINAL.has(batch.state);
/** Nothing is left to land: a cancelled batch's running items still finish, and their pictures still come. */
export const isSettled = (batch) => isFinal(batch) && batch.counts.pending === 0;

/** What a thumbnail's box says until (or instead of) a picture. */
const PLACEHOLDER = { queued: 'waiting its turn', running: 'rendering…', failed: 'no picture', cancelled: 'not run' };

/** @type {Map<number, {li: HTMLElement, state: string, url?: string}>} */
const shown = new Map();

/** Forgets the items shown (a new batch), their pictures' memory with them. */
export function clearBatch() {
  for (const item of shown.values()) if (item.url) URL.revokeObjectURL(item.url);
  shown.clear();
  $('batch-items').replaceChildren();
  $('batch-deliveries').tBodies[0].replaceChildren();
  $('batch-result').hidden = true;
}

function summary(b) {
  const c = b.counts;
  const parts = [`${c.succeeded} succeeded`, `${c.failed} failed`];
  if (c.cancelled) parts.push(`${c.cancelled} cancelled`);
  if (c.pending) parts.push(`${c.pending} pending`);
  return `${b.id} · ${b.state} · ${c.total} items: ${parts.join(', ')}`;
}

/** The words under a thumbnail: the state, and for a failure its status, error code and message. */
function caption(item) {
  const state = el('span', { class: `state state-${item.state}` }, item.state);
  const code = item.status !== undefined ? ` ${item.status}` : '';
  const parts = [el('strong', {}, `#${item.index}`), ' ', state, code];
  if (item.error) parts.push(' ', el('code', {}, item.error), el('span', { class: 'message' }, item.message ?? ''));
  return parts;
}

/**
 * Shows the batch; `picture(item)` fetches a succeeded item's picture (with the key) and resolves to
 * a blob, called once per item.
 */
export function showBatch(b, picture) {
  $('batch-result').hidden = false;
  $('batch-summary').textContent = summary(b);
  for (const item of b.items) {
    let s = shown.get(item.index);
    if (!s) {
      const thumb = el('div', { class: 'thumb' });
      const li = el('li', { id: `batch-item-${item.index}` }, thumb, el('p', { class: 'caption' }));
      $('batch-items').append(li);
      s = { li, state: '' };
      shown.set(item.index, s);
    }
    if (s.state === item.state) continue;
    s.state = item.state;
    s.li.dataset.state = item.state;
    s.li.querySelector('.caption').replaceChildren(...caption(item));
    s.li.querySelector('.thumb').textContent = PLACEHOLDER[item.state] ?? '';
    if (item.state === 'succeeded' && item.link) void land(s, item, picture);
  }
  showDeliveries(b.webhook);
}

async function land(s, item, picture) {
  const thumb = s.li.querySelector('.thumb');
  thumb.textContent = 'loading the picture…';
  try {
    const blob = await picture(item);
    s.url = URL.createObjectURL(blob);
    const img = el('img', { src: s.url, alt: `Item ${item.index}'s picture` });
    await img.decode();
    // The thumbnail opens the picture at full size.
    thumb.replaceChildren(
      el('a', { href: s.url, target: '_blank', rel: 'noopener', title: `${blob.type}, ${img.naturalWidth} × ${img.naturalHeight} px` }, img),
    );
  } catch (e) {
    thumb.textContent = e.message;
  }
}

function showDeliveries(webhook) {
  $('batch-webhook-box').hidden = !webhook;
  if (!webhook) return;
  $('batch-webhook-url').textContent = webhook.url;
  const rows = webhook.deliveries.map((d) =>
    el(
      'tr',
      { title: d.error ? `${d.event_id}: ${d.error}` : d.event_id },
      el('td', {}, el('code', {}, d.type)),
      el('td', {}, d.idx == null ? '—' : `#${d.idx}`),
      el('td', {}, String(d.attempt)),
      el('td', {}, d.status == null ? '—' : String(d.status)),
      el('td', {}, el('span', { class: `outcome outcome-${d.outcome}` }, d.outcome)),
      el('td', {}, new Date(d.at).toLocaleTimeString()),
    ),
  );
  $('batch-deliveries').tBodies[0].replaceChildren(...rows);
  $('batch-deliveries').hidden = rows.length === 0;
  $('batch-no-deliveries').hidden = rows.length > 0;
}

/**
 * What is left of the webhook's deliveries once the batch is final: `last` while batch.completed is
 * not listed yet (it follows the last item at once), `retries` while some event's latest attempt
 * failed (the next comes after a backoff), undefined when nothing is left to come.
 */
export function deliveriesToCome(b) {
  if (!b.webhook) return undefined;
  if (!b.webhook.deliveries.some((d) => d.type === 'batch.completed')) return 'last';
  const latest = new Map();
  for (const d of b.webhook.deliveries) latest.set(d.event_id, d.outcome);
  return [...latest.values()].includes('failed') ? 'retries' : undefined;
}
