// Bearer authentication (spec §5; DESIGN §3: 401 unauthorized with WWW-Authenticate: Bearer).
// Used by REST and MCP alike.
import type { NextFunction, Request, Response } from 'express';
import type { Account, Accounts } from '../accounts/index.ts';
import { ServiceError } from '../errors.ts';

export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header ?? '');
  return m?.[1];
}

export function unauthorized(message: string): ServiceError {
  return new ServiceError('unauthorized', message, { 'www-authenticate': 'Bearer realm="screenshot", error="invalid_token"' });
}

export async function authenticate(accounts: Accounts, header: string | undefined): Promise<Account> {
  const token = bearerToken(header);
  if (!token) throw new ServiceError('unauthorized', 'an API key is required: send Authorization: Bearer <API_KEY>', { 'www-authenticate': 'Bearer realm="screenshot"' });
  const account = await accounts.authenticate(token);
  if (!account) throw unauthorized('the API key is not valid');
  return account;
}

export function requireAuth(accounts: Accounts) {
  return async (req: Request, res: Response, next: NextFunction) => {
    res.locals.account = await authenticate(accounts, req.get('authorization'));
    next();
  };
}
