// Bearer authentication (spec §5; DESIGN §3: 401 unauthorized with WWW-Authenticate: Bearer).
// Used by REST and MCP alike; only the body of the 401 differs:
// - REST: the catalogue's {error: "unauthorized", message} (server/http/errors.ts).
// - MCP (/mcp): a JSON-RPC error response, the shape MCP clients read from a failed POST (the Python
//   SDK shows its `error.message`; the TypeScript SDK and the Inspector print the body), message
//   "unauthorized: <message>" and the catalogue code in `data.error`. With the REST body the Python
//   SDK prints only "Server returned an error response". The body stays short because
//   the TypeScript SDK prints it whole.
// The messages say "the API key is missing" / "the API key is invalid" in so many words, because
// that sentence is all most clients will show.
//
// There is no OAuth here. MCP clients that meet a 401 try OAuth discovery (RFC 9728/8414) and
// client registration on this origin; those paths answer 404 with a message that says the key is
// the problem (oauthProbeAnswer), since "Dynamic Client Registration rejected (HTTP 404): <body>"
// is what the MCP Inspector and Claude Code then print.
import type { NextFunction, Request, Response } from 'express';
import type { Account, Accounts } from '../accounts/index.ts';
import { ServiceError } from '../errors.ts';
import { REQUEST_HEADER } from '../kinds/headers.ts';
import { errorHeaders } from '../response/write.ts';

const REALM = 'realm="screenshot"';
export const MISSING_KEY = 'the API key is missing: send it as Authorization: Bearer <API_KEY>';
export const NOT_BEARER = 'the API key is missing: the Authorization header must be "Bearer <API_KEY>"';
export const INVALID_KEY = 'the API key is invalid (unknown or revoked)';

export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header ?? '');
  return m?.[1];
}

/** A key was sent and is not valid: RFC 6750 §3.1 `invalid_token`, with a description. */
export function unauthorized(message: string): ServiceError {
  return new ServiceError('unauthorized', message, {
    challenge: `Bearer ${REALM}, error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"`,
  });
}

export async function authenticate(accounts: Accounts, header: string | undefined): Promise<Account> {
  const token = bearerToken(header);
  // No credentials: RFC 6750 §3.1 says the challenge then carries no error code.
  if (!token) throw new ServiceError('unauthorized', header ? NOT_BEARER : MISSING_KEY, { challenge: `Bearer ${REALM}` });
  const account = await accounts.authenticate(token);
  if (!account) throw unauthorized(INVALID_KEY);
  return account;
}

export function requireAuth(accounts: Accounts) {
  return async (req: Request, res: Response, next: NextFunction) => {
    res.locals.account = await authenticate(accounts, req.get(REQUEST_HEADER.authorization));
    next();
  };
}

/**
 * The MCP endpoint's 401: JSON-RPC error (id null: the unauthenticated body is never parsed;
 * code -32000, the SDKs' code for HTTP-level failures), message "unauthorized: <message>".
 */
export function sendMcpUnauthorized(res: Response, e: ServiceError): void {
  res.locals.errorCode = e.code;
  res
    .status(e.status)
    .set(errorHeaders(e))
    .type('application/json')
    .send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `${e.code}: ${e.message}`, data: { error: e.code } } }));
}

/** Paths MCP clients probe for OAuth after a 401 (RFC 9728, RFC 8414, OpenID discovery, DCR). */
const OAUTH_PROBE = /(^|\/)\.well-known\/(oauth-protected-resource|oauth-authorization-server|openid-configuration)(\/|$)|^\/(register|authorize|token)\/?$/;

/** 404 for an OAuth probe, saying what a client that ends up here should fix; undefined otherwise. */
export function oauthProbeAnswer(path: string): ServiceError | undefined {
  if (!OAUTH_PROBE.test(path)) return undefined;
  return new ServiceError(
    'not_found',
    'no OAuth here: this server takes an API key (Authorization: Bearer <API_KEY>). After a 401 from /mcp, the API key your client ' +
      'sent is missing or invalid: check the Authorization header in its configuration (docs/mcp.md, "MCP troubleshooting").',
  );
}
