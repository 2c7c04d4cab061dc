// Virtual time for a deterministic render (server/determinism/index.ts explains the choices).
// Installed in the main world of every document before the page's own scripts (and, in html mode,
// in the about:blank realm that setContent writes into). Plain browser JavaScript, no imports.
//
// - Date, Date.now() and performance.now() read a virtual clock that starts at T0 and moves only
//   when a timer fires (it jumps to that timer's due time).
// - setTimeout, setInterval and requestAnimationFrame callbacks run in due order as fast as the
//   page can run them (one per task), not when the wall clock says. A chain of timers (a timer set
//   by a timer, a frame requested by a frame) stops CHAIN_SPAN_MS of virtual time after it began;
//   a document runs at most MAX_CALLBACKS callbacks. Every capture of the same page therefore sees
//   the same number of ticks, whatever the machine's speed.
// - Math.random is a seeded generator (mulberry32): the same sequence in every capture.
// - Timers set by our own tools (puppeteer evaluations: the banner clean-up) keep the real clock,
//   so that their waits still wait.
// window[Symbol.for('screenshot-service/determinism')] lets the freeze step wait for the queue to
// run dry (drain) and stop time (freeze).
(() => {
  const KEY = Symbol.for('screenshot-service/determinism');
  if (window[KEY]) return;

  const T0 = 1735689600000; // 2025-01-01T00:00:00.000Z
  const SEED = 0x5eed1234;
  const CHAIN_SPAN_MS = 5000;
  const MAX_CALLBACKS = 10000;
  const FRAME_MS = 1000 / 60;
  const CLAMP_MS = 4; // HTML: intervals and deeply nested timeouts wait at least 4 ms
  const FIRST_ID = 0x40000000; // above the browser's own timer ids
  const SELF = 'screenshot-service/virtual-time.js'; // this file's sourceURL (last line)

  const nativeSetTimeout = window.setTimeout.bind(window);
  const nativeClearTimeout = window.clearTimeout.bind(window);
  const nativeSetInterval = window.setInterval.bind(window);
  const nativeClearInterval = window.clearInterval.bind(window);
  const nativeRequestFrame = window.requestAnimationFrame.bind(window);
  const nativeCancelFrame = window.cancelAnimationFrame.bind(window);
  const NativeDate = Date;
  const NativeError = Error;
  const nativeQueueMicrotask = window.queueMicrotask.bind(window);
  const channel = new MessageChannel();

  let now = 0; // virtual milliseconds since this document started
  let nextId = FIRST_ID;
  let seq = 0;
  let ran = 0;
  let frozen = false;
  let pumping = false;
  /** @type {Map<number, {id: number, due: number, seq: number, fn: Function, args: unknown[], repeat: number, end: number, depth: number}>} */
  const queue = new Map();
  /** The chain of the callback that ran last: timers set now (or in its microtasks) belong to it. */
  let current = null;
  let drained = [];

  /**
   * True when the code calling a timer function was evaluated by puppeteer (its source URL starts
   * with pptr:). Only the immediate caller counts: html mode's setContent runs the page's inline
   * scripts from inside a puppeteer evaluation, and those are the page's, not ours.
   */
  function fromTools() {
    const limit = NativeError.stackTraceLimit;
    NativeError.stackTraceLimit = 8;
    const lines = String(new NativeError().stack).split('\n').slice(1);
    NativeError.stackTraceLimit = limit;
    const caller = lines.find((l) => !l.includes(SELF));
    return caller !== undefined && caller.includes('pptr:');
  }

  function schedule(fn, delay, args, repeat) {
    const id = nextId++;
    if (frozen || ran >= MAX_CALLBACKS) return id; // time has stopped: it never fires
    const depth = current ? current.depth + 1 : 0;
    let wait = Math.max(0, Number(delay) || 0);
    if (repeat || depth >= 5) wait = Math.max(wait, CLAMP_MS);
    const due = now + wait;
    const end = current ? current.end : now + CHAIN_SPAN_MS;
    if (due > end) return id; // past its chain's span: never fires
    queue.set(id, { id, due, seq: seq++, fn, args, repeat: repeat ? wait : 0, end, depth });
    pump();
    return id;
  }

  function pump() {
    if (pumping || frozen) return;
    pumping = true;
    channel.port2.postMessage(0);
  }

  channel.port1.onmessage = () => {
    pumping = false;
    if (frozen) return;
    let next = null;
    for (const t of queue.values()) if (!next || t.due < next.due || (t.due === next.due && t.seq < next.seq)) next = t;
    if (!next) {
      current = null;
      for (const resolve of drained.splice(0)) resolve();
      return;
    }
    queue.delete(next.id);
    now = Math.max(now, next.due);
    ran++;
    const chain = { end: next.end, depth: next.depth };
    current = chain;
    if (next.repeat && now + next.repeat <= next.end && ran < MAX_CALLBACKS) {
      queue.set(next.id, { ...next, due: now + next.repeat, seq: seq++, depth: next.depth + 1 });
    }
    // Microtasks the callback queues (promise chains, awaits) still belong to its chain; a few hops
    // later the chain ends, so that unrelated tasks (a network response) start chains of their own.
    const release = () => {
      if (current === chain) current = null;
    };
    nativeQueueMicrotask(() => nativeQueueMicrotask(() => nativeQueueMicrotask(() => nativeQueueMicrotask(release))));
    pump();
    try {
      if (typeof next.fn === 'function') next.fn.apply(window, next.args);
      else (0, eval)(String(next.fn));
    } catch (e) {
      nativeSetTimeout(() => {
        throw e;
      }, 0); // reported as the browser reports a timer's error, without stopping the pump
    }
  };

  function cancel(id) {
    queue.delete(Number(id));
  }

  window.setTimeout = function setTimeout(fn, delay, ...args) {
    return fromTools() ? nativeSetTimeout(fn, delay, ...args) : schedule(fn, delay, args, false);
  };
  window.setInterval = function setInterval(fn, delay, ...args) {
    return fromTools() ? nativeSetInterval(fn, delay, ...args) : schedule(fn, delay, args, true);
  };
  window.clearTimeout = function clearTimeout(id) {
    if (Number(id) >= FIRST_ID) cancel(id);
    else nativeClearTimeout(id);
  };
  window.clearInterval = function clearInterval(id) {
    if (Number(id) >= FIRST_ID) cancel(id);
    else nativeClearInterval(id);
  };
  window.requestAnimationFrame = function requestAnimationFrame(fn) {
    if (fromTools()) return nativeRequestFrame(fn);
    const nextFrame = (Math.floor(now / FRAME_MS) + 1) * FRAME_MS;
    // The callback gets the frame's time; all frames requested before it share it.
    return schedule(() => fn(nextFrame), nextFrame - now, [], false);
  };
  window.cancelAnimationFrame = function cancelAnimationFrame(id) {
    if (Number(id) >= FIRST_ID) cancel(id);
    else nativeCancelFrame(id);
  };

  function VirtualDate(...args) {
    if (!new.target) return new NativeDate(T0 + now).toString();
    return Reflect.construct(NativeDate, args.length ? args : [T0 + now], new.target);
  }
  VirtualDate.prototype = NativeDate.prototype;
  VirtualDate.now = () => Math.floor(T0 + now);
  VirtualDate.parse = NativeDate.parse;
  VirtualDate.UTC = NativeDate.UTC;
  Object.defineProperty(VirtualDate, 'name', { value: 'Date' });
  window.Date = VirtualDate;
  const performanceNow = () => now;
  Object.defineProperty(performance, 'now', { value: performanceNow, configurable: true, writable: true });

  let state = SEED >>> 0;
  Math.random = function random() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  Object.defineProperty(window, KEY, {
    value: Object.freeze({
      /** Resolves when no timer is left to run (every chain has ended). */
      drain: () => new Promise((resolve) => {
        drained.push(resolve);
        pump();
      }),
      /** Stops time: no timer or frame callback runs again. */
      freeze: () => {
        frozen = true;
        queue.clear();
        for (const resolve of drained.splice(0)) resolve();
      },
      stats: () => ({ now, ran, pending: queue.size }),
    }),
  });
})();
//# sourceURL=screenshot-service/virtual-time.js
