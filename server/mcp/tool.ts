// The one MCP tool, `take_screenshot` (spec §4.2): its definition and how a capture or a
// failure becomes a tool result.
// - Input schema: the REST body's JSON Schema (server/request/schema.ts), so the tool takes exactly
//   the fields of POST /v1/screenshot with the same defaults; its cross-field rules are written into
//   the schema's description instead of a top-level allOf, which several MCP clients and model
//   APIs refuse in a tool's input schema. Arguments go
//   unchanged to the capture service, which validates them with the same messages and does the
//   same billing, cache, egress guard and banner cleanup as REST.
// - Success: an image content block (base64 data, mimeType) and one short text block (size,
//   format, what the banner cleanup did, credits). Images over the MCP budget are re-encoded or
//   downscaled (shrink.ts) and the text says so, for the model. The same facts as data, for
//   programs, are in the result's `_meta["screenshot-service/capture"]` (ToolCaptureFacts: the image
//   returned and, under `changed`, what it was before and what was done). Not `structuredContent`:
//   Claude Code drops the image blocks of a result that has it (anthropics/claude-code#54737), and
//   a tool with structured output must declare an outputSchema that clients then check. Not a
//   JSON text block: models would read it as a second copy of the text. `_meta` reaches every SDK
//   client untouched and is not shown to the model.
// - Failure: `isError: true` with one text block whose first line is "<error code>: <message>",
//   the codes and messages of the REST error catalogue (server/errors.ts); never an empty result.
import { CONTENT_TYPES } from '../kinds/image.ts';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Account } from '../accounts/index.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { CROSS_FIELD_RULES, publicSchema } from '../request/schema.ts';
import { jsonFacts, type JsonFacts } from '../response/write.ts';
import type { CaptureOutcome, CaptureService } from '../service.ts';
import { REASON_WORDS } from '../tall-pages/truncation.ts';
import { describeShrink, fitImage, MCP_IMAGE_BUDGET_BYTES, MCP_IMAGE_MAX_EDGE, type FittedImage, type ImageFormat } from './shrink.ts';

export const TOOL_NAME = 'take_screenshot';

export function toolDefinition(): Tool {
  return {
    name: TOOL_NAME,
    title: 'Take a screenshot',
    description:
      'Render a web page (`url`, an absolute http or https URL) or supplied markup (`html`) in a browser and return the image. ' +
      'Give exactly one of url and html. By default the viewport (1280x720) is captured as PNG after cookie banners and consent ' +
      'popups are rejected or hidden; set fullPage for the whole page, selector for one element, viewport for another window size. ' +
      'Private, loopback and link-local targets are refused. One successful capture costs one credit; failures cost nothing. ' +
      `Images over ${MCP_IMAGE_BUDGET_BYTES.toLocaleString('en-US')} bytes or ${MCP_IMAGE_MAX_EDGE} px on a side are re-encoded ` +
      'or downscaled to fit MCP clients, and the text part says so.',
    inputSchema: toolInputSchema(),
    annotations: { title: 'Take a screenshot', readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  };
}

/**
 * The REST body schema (every field and viewport.* described there) with its cross-field rules
 * stated in words instead of `allOf`: model APIs refuse allOf/anyOf/oneOf at the top of a tool's
 * input schema, and agents read descriptions. url and html also say it in their own descriptions.
 */
export function toolInputSchema(): Tool['inputSchema'] {
  const { allOf: _rules, description: _restDescription, ...schema } = publicSchema();
  return {
    ...schema,
    type: 'object',
    description: `The arguments are the JSON body of POST /v1/screenshot. Rules across fields: ${CROSS_FIELD_RULES.join('; ')}. Every other field is optional.`,
  };
}

/** `_meta` key of the capture facts (MCP `_meta` names: a prefix of DNS-style labels, a slash, a name). */
export const CAPTURE_META_KEY = 'screenshot-service/capture';

interface ImageFacts {
  format: ImageFormat;
  width: number;
  height: number;
  bytes: number;
}

/**
 * What a successful call returned, as data: the image and, when it was fitted to the budget, what
 * changed; then the facts the REST answer sends as headers, as the response registry puts them in
 * `_meta` (credits, cache, bannerAction, targetStatus, truncatedFromHeight and truncationReason, waitTimedOut...).
 */
export type ToolCaptureFacts = ImageFacts & {
  mimeType: string;
  /** Present only when the capture was re-encoded or downscaled to fit the MCP result budget. */
  changed?: {
    reason: 'bytes' | 'edge' | 'bytes+edge';
    from: ImageFacts;
    reencoded: boolean;
    downscaled: boolean;
    quality: number;
  };
} & JsonFacts;

export interface CallContext {
  account: Account;
  capture: CaptureService;
  log: Logger;
  requestId: string;
  cache: { lookup: boolean; store: boolean };
  /** The caller went away: the render stops and nothing is billed (the same path as REST). */
  signal?: AbortSignal;
  /** Told the error code of a failed call, for the request log line. */
  onError?(code: string): void;
}

export async function callTakeScreenshot(args: Record<string, unknown> | undefined, ctx: CallContext): Promise<CallToolResult> {
  let out: CaptureOutcome;
  try {
    out = await ctx.capture(ctx.account, args ?? {}, { cache: ctx.cache, signal: ctx.signal });
  } catch (e) {
    return failure(e, ctx, 'No credit was charged.');
  }
  let fitted: FittedImage;
  try {
    fitted = await fitImage(out.body, out.request.format);
  } catch (e) {
    // Our own encoder's output should always decode; if it does not, say so honestly.
    ctx.log.error({ err: e, requestId: ctx.requestId }, 'mcp: could not fit the capture into the result budget');
    return failure(
      new ServiceError(
        'internal_error',
        `the capture succeeded but could not be fitted into the ${MCP_IMAGE_BUDGET_BYTES}-byte MCP result budget (request ${ctx.requestId}); POST /v1/screenshot returns it`,
      ),
      ctx,
      `It was billed (${out.facts.credits.charged} credit).`,
    );
  }
  return {
    content: [
      { type: 'image', data: fitted.data.toString('base64'), mimeType: CONTENT_TYPES[fitted.format] },
      { type: 'text', text: summary(out, fitted) },
    ],
    _meta: { [CAPTURE_META_KEY]: toolCaptureFacts(out, fitted) },
  };
}

export function toolCaptureFacts(out: CaptureOutcome, f: FittedImage): ToolCaptureFacts {
  const s = f.shrunk;
  return {
    format: f.format,
    mimeType: CONTENT_TYPES[f.format],
    width: f.width,
    height: f.height,
    bytes: f.data.length,
    ...(s
      ? {
          changed: {
            reason: s.reason,
            from: { format: s.originalFormat, width: s.originalWidth, height: s.originalHeight, bytes: s.originalBytes },
            reencoded: true,
            downscaled: f.width !== s.originalWidth || f.height !== s.originalHeight,
            quality: s.quality,
          },
        }
      : {}),
    ...jsonFacts(out.facts),
  };
}

/** A failed call: isError with "<code>: <message>" and what was billed (also compare-tool.ts). */
export function failure(e: unknown, ctx: CallContext, billing: string): CallToolResult {
  let err: ServiceError;
  if (e instanceof ServiceError) err = e;
  else {
    ctx.log.error({ err: e, requestId: ctx.requestId }, 'mcp: unexpected error');
    err = new ServiceError('internal_error', `an unexpected error occurred (request ${ctx.requestId})`);
  }
  ctx.onError?.(err.code);
  const wait = err.facts.retryAfterSeconds;
  const retry = wait !== undefined ? ` Retry after ${wait} s.` : '';
  return { isError: true, content: [{ type: 'text', text: `${err.code}: ${err.message}\n${billing}${retry}` }] };
}

/** What cleanup did (x-banner-action): the first word is the action, the rest names the CMP. */
const BANNER_WORDS: Record<string, string> = {
  rejected: 'a reject-all control was clicked',
  hidden: 'banner and overlay elements were hidden',
  reverted: 'hiding would have emptied the page, so the original page was captured',
  none: 'nothing to remove',
};

export function describeBanner(action: string | undefined, req: CaptureOutcome['request']): string {
  if (!req.blockCookieBanners && req.hideSelectors.length === 0 && !req.blockAds) return 'Banner cleanup: off (blockCookieBanners false).';
  const value = (action ?? 'none').trim() || 'none';
  const word = /^[a-z]+/i.exec(value)?.[0]?.toLowerCase() ?? '';
  const meaning = BANNER_WORDS[word];
  return `Banner cleanup: ${value}${meaning ? ` (${meaning})` : ''}.`;
}

function summary(out: CaptureOutcome, f: FittedImage): string {
  const facts = out.facts;
  const what = out.request.url ? `Screenshot of ${clip(out.request.url, 200)}` : 'Screenshot of the supplied HTML';
  const status = facts.targetStatus !== undefined ? `, target answered HTTP ${facts.targetStatus}` : '';
  const lines = [
    `${what}${status}: ${f.format.toUpperCase()} ${f.width}x${f.height}, ${f.data.length.toLocaleString('en-US')} bytes.`,
    describeShrink(f),
    facts.truncated
      ? `The page was ${facts.truncated.fromHeight} CSS px tall; the capture was ${REASON_WORDS[facts.truncated.reason]} (reason ${facts.truncated.reason}).`
      : '',
    facts.waitTimedOut.length > 0
      ? `The page did not settle within the render budget (waits not finished: ${facts.waitTimedOut.join(', ')}); captureOnTimeout captured it as it was then, so it may be incomplete.`
      : '',
    describeBanner(facts.bannerAction, out.request),
    `Credits: ${facts.credits.charged} charged, ${facts.credits.remaining} remaining (cache ${facts.cache}).`,
  ];
  return lines.filter(Boolean).join('\n');
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
