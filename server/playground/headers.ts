// What the playground's script needs to know of the headers, served as GET /playground/headers.json
// from the registries (server/response/, server/kinds/headers.ts) so that app.js spells no
// header name: the response headers it lists under the image (in registry order, with their
// descriptions), the ones it reads for the download name and the timing waterfall, and the request
// headers it sends.
import { REQUEST_HEADER } from '../kinds/headers.ts';
import { HEADER, HEADER_LIST, wireName } from '../response/registry.ts';

export function playgroundHeaders() {
  return {
    shown: HEADER_LIST.filter((h) => h.playground).map((h) => ({ name: wireName(h), description: h.description })),
    filename: HEADER.contentDisposition,
    timing: HEADER.serverTiming,
    send: { key: REQUEST_HEADER.authorization, type: REQUEST_HEADER.contentType },
  };
}
