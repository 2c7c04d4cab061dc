// Visual diff: one comparator for the conformance suite (goldens, relations between captures) and
// the server's POST /v1/compare. A folder of its own, outside server/ and conformance/, because
// both use it and the suite's published package ships it without any server code (package.json
// `files`). pixelmatch (pinned: it decides which pixels differ) with masks, regions and a diff
// picture; a worker pool for callers that must keep their event loop free.
export { diffPictures, differingBands, type Diff, type DiffOptions, type Rect, type Rgba, type Size } from './diff.ts';
export { diffPicture } from './picture.ts';
export { changedRegions, MAX_REGIONS, REGION_CELL } from './regions.ts';
export { compareEncoded, decodePicture, encodePng, UndecodablePicture, type Compared, type Figures } from './compare.ts';
export { DiffPool, DEFAULT_DIFF_WORKERS } from './pool.ts';
export { sniffType, type ImageType } from './sniff.ts';
