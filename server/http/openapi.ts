// GET /openapi.json, generated from the one request schema and the one error catalogue.
import { ERROR_CATALOGUE } from '../errors.ts';
import { publicSchema } from '../request/schema.ts';

export function openApiDocument() {
  const errorResponse = (desc: string) => ({ description: desc, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  const byStatus = new Map<number, string[]>();
  for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  return {
    openapi: '3.1.0',
    info: { title: 'Screenshot rendering service', version: '1.0.0' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ScreenshotRequest: publicSchema(),
        Error: {
          type: 'object',
          required: ['error', 'message'],
          properties: { error: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) }, message: { type: 'string' } },
        },
      },
    },
    security: [{ bearer: [] }],
    paths: {
      '/v1/screenshot': {
        post: {
          summary: 'Render a page (url) or markup (html) and return the image bytes',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ScreenshotRequest' } } } },
          responses: {
            '200': {
              description: 'The image',
              content: { 'image/png': {}, 'image/jpeg': {}, 'image/webp': {} },
            },
            ...Object.fromEntries([...byStatus].map(([status, codes]) => [String(status), errorResponse(codes.join(', '))])),
          },
        },
      },
    },
  };
}
