// The open-loop offered load, chosen from the capacity measured on this host, the same rate for
// every contender. A fixed rate measures the host, not the service: on a host that serves fewer
// captures per second than the rate, each one waits behind a queue that grows for the whole
// measure, and the latency figure (and its ratio to the floor) is the queue's. Half of what the
// floor sustains keeps every contender below saturation on any host.

/** Of the floor's measured capacity, the share offered (queueing stays small below saturation). */
export const SHARE_OF_CAPACITY = 0.5;
/**
 * The plain page's figures are latency at light load (2 requests per second, on hosts where that is
 * at most half the floor's capacity): they include `networkidle2` renders, which hold a render slot
 * for the spec's 500 ms idle window however fast the host is, so a rate that grew with the CPU
 * would saturate the slots instead of measuring the renders.
 */
export const PLAIN_RATE_CAP = 2;
/** An open-loop measure lasts about this long at the chosen rate... */
const MEASURE_SECONDS = 12;

export interface OfferedLoad {
  /** Requests per second offered to every contender on the mix. */
  mixPerSecond: number;
  /** ...and on the plain page. */
  plainPerSecond: number;
  /** What each was derived from: the floor's saturated mix throughput, its plain-page capacity. */
  floorMixCapacityPerSecond: number;
  floorPlainCapacityPerSecond: number;
  rule: string;
}

/** The plain page's rate, from the floor's sequential time on it (known before the mix runs). */
export function plainRate(floorPlainSequentialMs: number): number {
  return Math.min(PLAIN_RATE_CAP, (1000 / floorPlainSequentialMs) * SHARE_OF_CAPACITY);
}

export function offeredLoad(floorMixRps: number, floorPlainSequentialMs: number): OfferedLoad {
  return {
    mixPerSecond: floorMixRps * SHARE_OF_CAPACITY,
    plainPerSecond: plainRate(floorPlainSequentialMs),
    floorMixCapacityPerSecond: floorMixRps,
    floorPlainCapacityPerSecond: 1000 / floorPlainSequentialMs, // one page, one request at a time
    rule: `mix: ${SHARE_OF_CAPACITY} x the floor's saturated mix throughput; plain page: ${SHARE_OF_CAPACITY} x the floor's sequential capacity, at most ${PLAIN_RATE_CAP}/s`,
  };
}

/**
 * How many requests an open-loop measure sends: about MEASURE_SECONDS at `rate`, a whole number of
 * cycles of `cycle` pages (each page its share), between `min` and `max` requests.
 */
export function openLoopCount(rate: number, cycle: number, min: number, max: number): number {
  const n = Math.round((rate * MEASURE_SECONDS) / cycle) * cycle;
  return Math.max(min, Math.min(max, n));
}

export const fmtRate = (r: number) => `${r.toFixed(2)} req/s`;
