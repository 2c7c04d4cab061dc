// What each request field is for, in the groups a person looks for them in: every field of the
// request schema (./schema.ts) and of the compare request (server/compare/schema.ts) carries an
// `x-group` naming one of these, declared where the field joins the schema (a room's fields go in
// together). GET /openapi.json keeps `x-group` on each field and lists the groups as `x-groups` on
// the request body, so the playground's form (server/playground/) places a new field in its group
// without an edit. This file imports nothing.

/** In the order the playground shows them; `open`: the essentials, unfolded when the page opens. */
export const FIELD_GROUPS = [
  { name: 'page', title: 'The page', description: 'What is captured, and what is sent to fetch it.', open: true },
  { name: 'picture', title: 'The picture', description: 'The image: its format, window, size and region.', open: true },
  { name: 'waiting', title: 'Waiting', description: 'When the page counts as ready, and what happens when it never is.', open: false },
  { name: 'banners', title: 'Banners and clutter', description: 'Cookie banners, ads and other elements hidden before the capture.', open: false },
  { name: 'prepare', title: 'Preparing the page', description: 'Requests refused, styles and scripts added, clicks and keys before the capture.', open: false },
  { name: 'visitor', title: 'The visitor', description: 'Who looks at the page: device, place, language, preferences.', open: false },
  { name: 'caching', title: 'Caching', description: 'How long a capture may be reused.', open: false },
  { name: 'comparison', title: 'Comparison', description: 'Compare the capture with a baseline (POST /v1/compare).', open: false },
] as const;

export type FieldGroup = (typeof FIELD_GROUPS)[number]['name'];

/** The fields of one room, all of one group. */
export function inGroup<G extends FieldGroup, F extends Record<string, object>>(group: G, fields: F): { [K in keyof F]: F[K] & { readonly 'x-group': G } } {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { ...v, 'x-group': group }])) as { [K in keyof F]: F[K] & { readonly 'x-group': G } };
}
