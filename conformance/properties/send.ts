// How a property sends one request: resolved as cases are (directives, fixture origins), with a
// fresh nonce each time, so that no cache answers a request with an earlier run's fixture.
import { exchange, type Observed } from '../engine/exchange.ts';
import type { ResolveContext } from '../engine/resolve.ts';
import type { HttpRequestSpec } from '../model/model.ts';
import type { PropertyContext } from './property.ts';

export function resolveContext(ctx: Pick<PropertyContext, 'env' | 'key'>): ResolveContext {
  return {
    baseUrl: ctx.env.baseUrl,
    apiKey: ctx.key(),
    fixtureOrigins: ctx.env.fixtureOrigins,
    nonce: Math.random().toString(36).slice(2, 10),
  };
}

export async function send(ctx: PropertyContext, spec: HttpRequestSpec): Promise<Observed> {
  return exchange(spec, resolveContext(ctx), ctx.http);
}
