// GET /v1/devices: the device presets a request may name in `device`, with the values each one
// applies and the list's version (./devices.ts). Public like /openapi.json: the list is the same
// for everyone and describes the API, not an account. Its OpenAPI entry is devicesPathItem().
import type { Request, Response } from 'express';
import { DEVICE_PRESETS, DEVICES_VERSION } from './devices.ts';

export const DEVICES_PATH = '/v1/devices';

const LIST = { version: DEVICES_VERSION, devices: [...DEVICE_PRESETS.values()] };

export function devicesRoute() {
  return (_req: Request, res: Response) => void res.json(LIST);
}

/** The path item of GET /v1/devices in /openapi.json (server/http/openapi.ts). */
export function devicesPathItem(answerHeaders: Record<string, unknown>) {
  const dims = (what: string) => ({ type: 'number', description: what });
  return {
    get: {
      operationId: 'listDevices',
      tags: ['capture'],
      summary: 'The device presets of the `device` field',
      description:
        'Every preset a capture request may name in `device`, with the values it applies. `version` names the list: the puppeteer-core ' +
        'release whose device descriptors it is built from; the names are also the `device` enum of the request schema.',
      security: [],
      responses: {
        '200': {
          description: 'The presets, in a stable order.',
          headers: answerHeaders,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['version', 'devices'],
                properties: {
                  version: { type: 'string', description: "The list's version, e.g. `puppeteer-core@24.43.1`.", examples: [DEVICES_VERSION] },
                  devices: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['name', 'viewport', 'mobile', 'touch', 'landscape', 'userAgent'],
                      properties: {
                        name: { type: 'string', description: 'The value of `device`.', examples: ['iPhone 15 Pro'] },
                        viewport: {
                          type: 'object',
                          required: ['width', 'height', 'deviceScaleFactor'],
                          properties: {
                            width: dims('CSS pixels.'),
                            height: dims('CSS pixels.'),
                            deviceScaleFactor: dims("Device pixels per CSS pixel (at most 4, the spec's bound)."),
                          },
                        },
                        mobile: { type: 'boolean', description: 'A mobile viewport: the page\'s `<meta name="viewport">` applies.' },
                        touch: { type: 'boolean', description: 'A touch screen: touch events, `navigator.maxTouchPoints`, `(pointer: coarse)`.' },
                        landscape: { type: 'boolean', description: 'Landscape screen orientation.' },
                        userAgent: { type: 'string', description: 'The User-Agent it sends, unless the request gives `userAgent`.' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
