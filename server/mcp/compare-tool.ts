// The MCP tool `compare_screenshots`: POST /v1/compare as a tool, from the same schema
// (server/compare/schema.ts) and the same comparison service (billing, cache, egress guard, masks).
// Success: the diff picture as an image block (fitted to the MCP budget like a capture, shrink.ts),
// one text block with the figures for the model, and the figures as data in
// `_meta["screenshot-service/compare"]` (the comparison's facts, the JSON answer's members but the
// pictures). Failure: as take_screenshot's, "<error code>: <message>".
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { COMPARE_RULES, publicCompareSchema } from '../compare/schema.ts';
import type { CompareOutcome, CompareService } from '../compare/service.ts';
import { ratioText } from '../response/compare-headers.ts';
import type { CompareFacts } from '../response/facts.ts';
import { describeShrink, fitImage } from './shrink.ts';
import { failure, type CallContext } from './tool.ts';

export const COMPARE_TOOL_NAME = 'compare_screenshots';
export const COMPARE_META_KEY = 'screenshot-service/compare';

export function compareToolDefinition(): Tool {
  const { allOf: _rules, description: _d, ...schema } = publicCompareSchema();
  return {
    name: COMPARE_TOOL_NAME,
    title: 'Compare a page with a baseline',
    description:
      'Capture a page (`url`) or markup (`html`) as take_screenshot does and compare it with a baseline: `baseline.image`, a previous ' +
      'picture in base64, or `baseline.request`, a second capture request rendered now (staging against production). Returns a picture ' +
      'of the differences (the current capture in grey, changed pixels red, changed regions outlined) and how many pixels differ, where. ' +
      'Mask what always changes with ignoreSelectors (CSS selectors) or ignoreRegions (rectangles). Each capture rendered costs one ' +
      'credit, a cached one nothing; the comparison is free, and a failure costs nothing.',
    inputSchema: { ...schema, type: 'object', description: `The arguments are the JSON body of POST /v1/compare. Rules: ${COMPARE_RULES.join('; ')}.` },
    annotations: { title: 'Compare a page with a baseline', readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  };
}

export interface CompareCallContext extends CallContext {
  compare: CompareService;
}

export async function callCompare(args: Record<string, unknown> | undefined, ctx: CompareCallContext): Promise<CallToolResult> {
  let out: CompareOutcome;
  try {
    out = await ctx.compare(ctx.account, args ?? {}, { cache: ctx.cache, signal: ctx.signal });
  } catch (e) {
    return failure(e, ctx, 'No credit was charged.');
  }
  const fitted = await fitImage(out.png, 'png');
  return {
    content: [
      { type: 'image', data: fitted.data.toString('base64'), mimeType: `image/${fitted.format}` },
      { type: 'text', text: [summary(out.facts), describeShrink(fitted)].filter(Boolean).join('\n') },
    ],
    _meta: { [COMPARE_META_KEY]: out.facts },
  };
}

function summary(f: CompareFacts): string {
  const size = (s: { width: number; height: number }) => `${s.width}x${s.height}`;
  const sizes =
    f.current.width === f.baseline.width && f.current.height === f.baseline.height
      ? `both ${size(f.current)}`
      : `current ${size(f.current)}, baseline ${size(f.baseline)} (sizes differ)`;
  const regions = f.regions.map((r) => `${r.width}x${r.height} at ${r.x},${r.y}`).join('; ');
  return [
    f.diffPixels === 0 ? `No difference (${sizes}).` : `${f.diffPixels} pixels differ (ratio ${ratioText(f.ratio)}; ${sizes}).`,
    f.regionCount > 0
      ? `Changed regions (${f.regionCount}${f.regionCount > f.regions.length ? `, the ${f.regions.length} largest shown` : ''}): ${regions}.`
      : '',
    f.masks > 0 ? `${f.masks} rectangle(s) masked.` : '',
    `Credits: ${f.credits.charged} charged, ${f.credits.remaining} remaining.`,
  ]
    .filter(Boolean)
    .join('\n');
}
