// Running the request's own JavaScript (js, waitForFunction) and our css in the page's main world,
// through the render's own CDP session (Runtime.evaluate): the DevTools protocol compiles the
// source itself, so the page's Content-Security-Policy (script-src 'none', no unsafe-eval) does not
// apply to it, and nothing is added to the page's DOM. What the script then makes the page load
// still goes through the page's CSP and always through the egress guard (DESIGN §4).
import type { CDPSession, Protocol } from 'puppeteer-core';
import { ScriptError } from '../errors.ts';

/** The longest error message quoted back (the error's own message, never the script). */
const ERROR_MAX_CHARS = 300;

/** The error's first line ("TypeError: x is not a function"), without the stack, control characters or excess length. */
export function describeException(d: Protocol.Runtime.ExceptionDetails): string {
  const ex = d.exception;
  const text = ex?.description ?? (ex && ex.value !== undefined ? `${ex.type === 'string' ? '' : 'thrown value: '}${String(ex.value)}` : d.text);
  const line = String(text ?? 'an unknown error')
    .split('\n')[0]!
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim();
  return line.length > ERROR_MAX_CHARS ? `${line.slice(0, ERROR_MAX_CHARS)}...` : line || 'an unknown error';
}

/**
 * Evaluates `expression` in the top document's main world and awaits a promise it returns. A throw
 * (or a syntax error) is a ScriptError naming `field`; a document that went away meanwhile is too.
 */
export async function evaluateInPage(client: CDPSession, expression: string, field: string, byValue = false): Promise<Protocol.Runtime.RemoteObject> {
  let r: Protocol.Runtime.EvaluateResponse;
  try {
    r = await client.send('Runtime.evaluate', { expression, awaitPromise: true, userGesture: true, silent: true, returnByValue: byValue });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    if (/context was destroyed|navigated or closed|Cannot find context|Target closed|Session closed/i.test(msg))
      throw new ScriptError(field, 'the page navigated away or closed before it finished');
    throw e;
  }
  if (r.exceptionDetails) throw new ScriptError(field, describeException(r.exceptionDetails));
  return r.result;
}
