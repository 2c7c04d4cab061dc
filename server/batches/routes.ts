// The batch routes, rows of the route table (server/http/app.ts, which authenticates first and
// parses the JSON body), over the batch service (service.ts; the MCP tools use it too):
//   POST   /v1/batches                       202 + Location, or one 400 naming every bad field
//   GET    /v1/batches/{id}                  the batch: state, counts, items, webhook attempts
//   GET    /v1/batches/{id}/items/{index}    an item's picture, with a synchronous capture's headers
//   DELETE /v1/batches/{id}                  cancels the items not started (never billed)
//   GET    /v1/webhook-secret                the secret that signs the calling key's webhooks
import type { RequestHandler } from 'express';
import { sendCapture } from '../edge/send-capture.ts';
import { PRIVATE_CACHE_CONTROL } from '../http-caching/cache-control.ts';
import { HEADER } from '../response/registry.ts';
import type { BatchService } from './service.ts';

/** The handlers of the batch routes; each is a row of the route table. */
export interface BatchHandlers {
  submit: RequestHandler;
  get: RequestHandler;
  cancel: RequestHandler;
  item: RequestHandler;
  webhookSecret: RequestHandler;
}

export function batchRoutes(service: BatchService): BatchHandlers {
  return {
    async submit(req, res) {
      const accepted = await service.submit(res.locals.account, req.body);
      res.status(202).location(accepted.link).json(accepted);
    },
    async get(req, res) {
      res.json(await service.read(res.locals.account, String(req.params.id)));
    },
    async cancel(req, res) {
      res.json(await service.cancel(res.locals.account, String(req.params.id)));
    },
    async item(req, res) {
      const picture = await service.picture(res.locals.account, String(req.params.id), String(req.params.index));
      sendCapture(req, res, picture, { kind: 'private' });
    },
    async webhookSecret(_req, res) {
      // A secret: never kept by a shared cache or the browser's.
      res.set(HEADER.cacheControl, PRIVATE_CACHE_CONTROL).json(await service.webhookSecret(res.locals.account));
    },
  };
}
