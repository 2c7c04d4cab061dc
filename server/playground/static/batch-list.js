// The batch's list of requests, kept as JSON text in its box: what a person pastes and what "Add to
// batch" appends to are the same text, so the list on screen is the body that is sent. The text is
// a JSON array of capture requests, or a whole batch body `{"requests": [...], "webhook"?: {...}}`.
// The server is the judge of what is in it: nothing here checks a request's fields.

/** The text as a value: `{value}` (undefined for an empty box), or `{error}` when it is not JSON. */
export function parseList(text) {
  if (!text.trim()) return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: e.message };
  }
}

/** The requests the text holds (an array, or a body's `requests`), or undefined when it holds neither. */
export function requestsOf(value) {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object' && Array.isArray(value.requests)) return value.requests;
  return undefined;
}

/** The text with `request` appended; throws when the text is not a list to append to. */
export function appendRequest(text, request) {
  const { value, error } = parseList(text);
  if (error) throw new Error(`the list is not JSON (${error}): fix it or empty it first`);
  if (value === undefined) return JSON.stringify([request], null, 2);
  const list = requestsOf(value);
  if (!list) throw new Error('the list is neither a JSON array nor a {"requests": [...]} body: fix it or empty it first');
  list.push(request);
  return JSON.stringify(value, null, 2);
}

/**
 * The body to send: an array becomes `{requests}`, the webhook URL (when given) is set on an
 * object. Text that is not JSON is sent as it is, so that the server's own answer says what is
 * wrong with it; `parseError` is the browser's finer word on where.
 */
export function batchBody(text, webhookUrl) {
  const { value, error } = parseList(text);
  if (error) return { text, parseError: error };
  const body = Array.isArray(value) ? { requests: value } : value;
  if (webhookUrl && body && typeof body === 'object' && !Array.isArray(body)) body.webhook = { url: webhookUrl };
  return { text: JSON.stringify(body) };
}
