// Which request fields an implementation declares, read from its OpenAPI document: the
// `extensions` profile's cases name the fields they send (model.ts `Case.fields`) and run only
// where those fields exist, since spec §9 lets an implementation ignore fields it does not know
// (a case would then fail for a feature the implementation never claimed). Best effort: an
// implementation without a readable document declares nothing, and its extension cases are skipped.
import { request } from 'undici';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** Follows local `$ref`s (`#/components/...`) in `doc`. */
function deref(doc: Json, v: unknown, depth = 0): unknown {
  if (!isObject(v) || typeof v.$ref !== 'string' || depth > 8) return v;
  const target = v.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), doc);
  return deref(doc, target, depth + 1);
}

/** Where other endpoints' fields are declared: `compare.<field>` for the body of POST /v1/compare (an extension endpoint). */
const OTHER_BODIES = { compare: '/v1/compare' } as const;

/**
 * Property names of the JSON request body of POST /v1/screenshot (also under allOf/anyOf/oneOf),
 * and those of the extension endpoints' bodies with their prefix (`compare.baseline`): none when
 * the document has no such path.
 */
export function declaredFieldsOf(doc: unknown): Set<string> {
  const out = bodyFields(doc, '/v1/screenshot');
  for (const [prefix, p] of Object.entries(OTHER_BODIES)) for (const f of bodyFields(doc, p)) out.add(`${prefix}.${f}`);
  return out;
}

function bodyFields(doc: unknown, path: string): Set<string> {
  const out = new Set<string>();
  if (!isObject(doc)) return out;
  const paths = isObject(doc.paths) ? doc.paths : {};
  const post = isObject(paths[path]) ? (paths[path] as Json).post : undefined;
  const body = deref(doc, isObject(post) ? post.requestBody : undefined);
  const content = isObject(body) && isObject(body.content) ? body.content : {};
  const collect = (schema: unknown, depth = 0): void => {
    const s = deref(doc, schema);
    if (!isObject(s) || depth > 4) return;
    if (isObject(s.properties)) for (const k of Object.keys(s.properties)) out.add(k);
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) for (const x of s[k]) collect(x, depth + 1);
  };
  for (const media of Object.values(content)) if (isObject(media)) collect(media.schema);
  return out;
}

/** GET {baseUrl}/openapi.json and the request fields it declares (none when it cannot be read). */
export async function fetchDeclaredFields(baseUrl: string, apiKey: string | undefined): Promise<Set<string>> {
  try {
    const res = await request(`${baseUrl.replace(/\/+$/, '')}/openapi.json`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      headersTimeout: 5000,
      bodyTimeout: 5000,
    });
    const text = await res.body.text();
    return res.statusCode === 200 ? declaredFieldsOf(JSON.parse(text)) : new Set();
  } catch {
    return new Set();
  }
}

/** Why a case cannot run against an implementation that declares `declared`, or null. */
export function undeclaredField(fields: readonly string[] | undefined, declared: ReadonlySet<string> | undefined): string | null {
  const missing = (fields ?? []).filter((f) => !declared?.has(f));
  return missing.length === 0 ? null : `the implementation's OpenAPI document does not declare ${missing.join(', ')} (GET /openapi.json)`;
}
