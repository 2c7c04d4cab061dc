// One request of a case, sent and observed: an HTTP exchange (the screenshot endpoint or the MCP
// endpoint) or an MCP exchange through a client session (mcp-client.ts). Either way the verdict
// (verdict.ts) judges an Observed, so REST and MCP cases share one executor.
import type { HttpClient, HttpResponse } from './http.ts';
import type { McpSessions } from './mcp-client.ts';
import { isMcpRequest, type RequestSpec } from '../model/model.ts';
import type { Observed } from './observed.ts';
import { authorization, buildRequest, resolveValue, type ResolveContext } from './resolve.ts';

export type { Observed } from './observed.ts';

/** The JSON of an HTTP body: JSON itself, or the first JSON `data:` line of a text/event-stream. */
export function jsonOfBody(res: HttpResponse): unknown {
  const s = res.body.toString('utf8');
  try {
    return JSON.parse(s);
  } catch {
    for (const line of s.split(/\r?\n/)) {
      if (!line.startsWith('data:')) continue;
      try {
        return JSON.parse(line.slice(5));
      } catch {
        /* the next one */
      }
    }
    return undefined;
  }
}

export async function exchange(spec: RequestSpec, ctx: ResolveContext, http: HttpClient, mcp?: McpSessions): Promise<Observed> {
  if (isMcpRequest(spec)) {
    if (!mcp) throw new Error('case needs the MCP endpoint (--mcp-url)');
    const key = authorization(spec.auth, ctx)!.slice('Bearer '.length);
    return mcp.exchange(spec, key, resolveValue(spec.arguments ?? {}, ctx) as Record<string, unknown>);
  }
  const res = await http(buildRequest(spec, ctx));
  return { ...res, json: jsonOfBody(res) };
}
