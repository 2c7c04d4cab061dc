// The query parameters of a signed link (GET /v1/screenshot) for /openapi.json, derived from the one
// request schema as canonical.ts reads them: top-level scalars by name, viewport.* flattened with a
// dot, arrays as the name repeated (OpenAPI `form` style, exploded; objects as JSON text), headers
// and cookies left out (links may not carry them); then the three link parameters.
import { publicSchema } from '../request/schema.ts';
import { NOT_IN_LINKS, SIGNED_PATH } from './canonical.ts';

type JsonSchema = Record<string, unknown> & { type?: string; description?: string; properties?: Record<string, JsonSchema> };

export function linkQueryParameters(): Array<Record<string, unknown>> {
  return [...fieldParameters(publicSchema().properties as Record<string, JsonSchema>), ...linkParameters(SIGNED_PATH)];
}

/** The query parameters of request fields (`prefix` before each name: a compare link's `baseline.request.`). */
export function fieldParameters(fields: Record<string, JsonSchema>, prefix = ''): Array<Record<string, unknown>> {
  const params: Array<Record<string, unknown>> = [];
  const param = (name: string, schema: JsonSchema, extra: Record<string, unknown> = {}) => {
    const { description, ...rest } = schema;
    params.push({ name: prefix + name, in: 'query', required: false, description, schema: rest, ...extra });
  };
  for (const [name, schema] of Object.entries(fields)) {
    if ((NOT_IN_LINKS as readonly string[]).includes(name)) continue;
    if (schema.type === 'object' && schema.properties) {
      for (const [sub, s] of Object.entries(schema.properties)) param(`${name}.${sub}`, s);
    } else if (schema.type === 'array' && (schema.items as JsonSchema | undefined)?.type === 'object') {
      // Each item travels as its JSON text (canonical.ts).
      const { items: _objects, ...rest } = schema;
      param(
        name,
        {
          ...rest,
          description: `${schema.description ?? ''} In a link: each item as JSON, the name repeated.`,
          items: { type: 'string', contentMediaType: 'application/json' },
        },
        { style: 'form', explode: true },
      );
    } else if (schema.type === 'array') {
      param(name, schema, { style: 'form', explode: true });
    } else {
      param(name, schema);
    }
  }
  return params;
}

/** keyId, expires and signature of a link to `path`. */
export function linkParameters(path: string): Array<Record<string, unknown>> {
  return [
    {
      name: 'keyId',
      in: 'query',
      required: true,
      description: 'The id of the API key whose signing secret signed the link (`key_` and 16 hex digits, as `keys list` shows); that key is billed.',
      schema: { type: 'string', pattern: '^key_[0-9a-f]{16}$' },
    },
    {
      name: 'expires',
      in: 'query',
      required: true,
      description: 'When the link stops working, in Unix seconds (410 link_expired after).',
      schema: { type: 'integer', minimum: 0 },
    },
    {
      name: 'signature',
      in: 'query',
      required: true,
      description: `Lower-case hex HMAC-SHA256, under the key's signing secret, of \`${path}?\` + the canonical query: every other parameter, names and values RFC 3986 percent-encoded (upper-case hex), sorted by name (stable), joined with \`&\` (docs/signed-links.md).`,
      schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    },
  ];
}
