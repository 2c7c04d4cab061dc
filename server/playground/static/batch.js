// The batch section: many captures as one durable job (POST /v1/batches, docs/batches.md). The list
// is built from the form ("Add to batch") or pasted (batch-list.js); the batch is sent with the
// page's key, then followed with GET on the link the 202 names until it is done, its items landing
// as thumbnails (batch-view.js, each picture fetched with the key from the item's link: pictures are
// the key's own, never public). The webhook's deliveries are followed until none is left to retry.
// Errors are the server's: a refused batch's message names its fields (`requests[0].viewport.width
// must be ...`), each part shown next to the box it is about.
import { $ } from './dom.js';
import { appendRequest, batchBody, parseList, requestsOf } from './batch-list.js';
import { clearBatch, deliveriesToCome, isFinal, isSettled, showBatch } from './batch-view.js';

/** How often a batch is read while its items run (and its last event goes out), and then while its webhook still has retries coming. */
const POLL_MS = 1000;
const DELIVERY_POLL_MS = 5000;
/** The page stops following retries after this (they go on for about 1.5 hours on the server). */
const DELIVERY_FOLLOW_MS = 10 * 60_000;

let names; // a promise of the header names (GET /playground/headers.json), given by app.js
/** The batch followed now; a new one (or a cancel's answer) replaces it, and the old poll stops on seeing that. */
let current;

async function headers(json = false) {
  const { send } = await names;
  const out = {};
  const key = $('key').value.trim();
  if (key) out[send.key] = `Bearer ${key}`;
  if (json) out[send.type] = 'application/json';
  return out;
}

function clearErrors() {
  for (const id of ['batch-error', 'err-batch-requests', 'err-batch-webhook']) {
    $(id).hidden = true;
    $(id).textContent = '';
  }
  $('batch-requests').removeAttribute('aria-invalid');
  $('batch-webhook').removeAttribute('aria-invalid');
}

function showError(id, text, input) {
  const box = $(id);
  box.textContent = box.textContent ? `${box.textContent} ${text}` : text;
  box.hidden = false;
  input?.setAttribute('aria-invalid', 'true');
}

/**
 * The server's error, each part next to what it names: a refused body's parts by the list (they name
 * `requests[i]...`) or by the webhook box; the rest (the key, credits, the rate) under the buttons.
 */
function placeError(status, err, hint) {
  const boxes = new Map(); // box id -> its parts
  for (const part of String(err.message ?? '').split('; ')) {
    const id = status !== 400 ? 'batch-error' : /^webhook\b/.test(part) ? 'err-batch-webhook' : 'err-batch-requests';
    boxes.set(id, [...(boxes.get(id) ?? []), part]);
  }
  const inputs = { 'err-batch-webhook': $('batch-webhook'), 'err-batch-requests': $('batch-requests') };
  for (const [id, parts] of boxes) showError(id, `${status} ${err.error ?? 'error'}: ${parts.join('; ')}`, inputs[id]);
  if (hint) showError('err-batch-requests', `(Your browser says: ${hint}.)`);
}

async function errorOf(res) {
  return res.json().catch(() => ({ error: 'error', message: res.statusText }));
}

/** The form's request appended to the list. */
function add(request) {
  clearErrors();
  try {
    $('batch-requests').value = appendRequest($('batch-requests').value, request().body);
  } catch (e) {
    return showError('err-batch-requests', e.message, $('batch-requests'));
  }
  showCount();
  $('status').textContent = `Added to the batch: ${$('batch-count').textContent}.`;
}

function showCount() {
  const list = requestsOf(parseList($('batch-requests').value).value);
  $('batch-count').textContent = list ? `${list.length} request${list.length === 1 ? '' : 's'}` : '';
}

async function submit() {
  clearErrors();
  const text = $('batch-requests').value;
  if (!text.trim())
    return showError('err-batch-requests', 'The list is empty: add the form’s request, or paste a JSON array of requests.', $('batch-requests'));
  const body = batchBody(text, $('batch-webhook').value.trim());
  $('batch-submit').disabled = true;
  $('batch-status').textContent = 'Submitting…';
  try {
    const res = await fetch('/v1/batches', { method: 'POST', headers: await headers(true), body: body.text });
    if (!res.ok) {
      $('batch-status').textContent = '';
      return placeError(res.status, await errorOf(res), body.parseError);
    }
    const accepted = await res.json();
    clearBatch();
    current = { id: accepted.id, link: accepted.link, retrying: undefined };
    $('batch-status').textContent = `Queued ${accepted.total} item${accepted.total === 1 ? '' : 's'}.`;
    void follow(current);
  } catch (e) {
    $('batch-status').textContent = '';
    showError('batch-error', `The request failed: ${e.message}`);
  } finally {
    $('batch-submit').disabled = false;
  }
}

/** Reads the batch until it is final and its webhook has no retry to come (or the page stops following). */
async function follow(batch) {
  while (current === batch) {
    let b;
    try {
      const res = await fetch(batch.link, { headers: await headers() });
      if (!res.ok) {
        const err = await errorOf(res);
        throw new Error(`${res.status} ${err.error}: ${err.message}`);
      }
      b = await res.json();
    } catch (e) {
      if (current === batch) showError('batch-error', `Reading the batch failed: ${e.message}`);
      return;
    }
    if (current !== batch) return;
    render(b);
    const toCome = isSettled(b) ? deliveriesToCome(b) : 'items';
    if (!toCome) return;
    if (toCome === 'retries') {
      batch.retrying ??= Date.now();
      if (Date.now() - batch.retrying > DELIVERY_FOLLOW_MS) {
        $('batch-status').textContent = `Batch ${b.state}. Webhook retries go on on the server; this page stopped following them.`;
        return;
      }
    }
    await new Promise((r) => setTimeout(r, toCome === 'retries' ? DELIVERY_POLL_MS : POLL_MS));
  }
}

function render(b) {
  showBatch(b, picture);
  $('batch-cancel').hidden = isFinal(b);
  const landed = `${b.counts.total - b.counts.pending} of ${b.counts.total} landed`;
  const status = isSettled(b) ? `Batch ${b.state}.` : isFinal(b) ? `Batch ${b.state}: ${landed}, the running ones finish…` : `Running: ${landed}…`;
  // Written only when it changes: the status is a live region, and a poll every second must not announce the same words again.
  if ($('batch-status').textContent !== status) $('batch-status').textContent = status;
}

/** A succeeded item's picture, fetched with the key from the item's link (GET /v1/batches/{id}/items/{index}). */
async function picture(item) {
  const res = await fetch(item.link, { headers: await headers() });
  if (!res.ok) {
    const err = await errorOf(res);
    throw new Error(`${res.status} ${err.error}: ${err.message}`);
  }
  return res.blob();
}

async function cancel() {
  const batch = current;
  if (!batch) return;
  clearErrors();
  $('batch-cancel').disabled = true;
  try {
    const res = await fetch(batch.link, { method: 'DELETE', headers: await headers() });
    if (!res.ok) return placeError(res.status, await errorOf(res));
    if (current === batch) render(await res.json()); // the running items still land: the poll goes on
  } catch (e) {
    showError('batch-error', `Cancelling failed: ${e.message}`);
  } finally {
    $('batch-cancel').disabled = false;
  }
}

/** Wires the section; `headerNames`: GET /playground/headers.json (a promise); `request`: the form's request (request.js). */
export function wireBatch(headerNames, request) {
  names = headerNames;
  $('add-to-batch').addEventListener('click', () => add(request));
  $('batch-requests').addEventListener('input', showCount);
  $('batch-submit').addEventListener('click', submit);
  $('batch-cancel').addEventListener('click', cancel);
  showCount();
}
