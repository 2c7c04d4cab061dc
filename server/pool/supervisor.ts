// The browser supervisor: one long-lived Chromium at a time (a generation), with concurrency + 1
// isolated contexts prepared ahead of demand (server/toolkit/slot.ts). A browser that crashes,
// disconnects or hangs is replaced at once; one that has served `recycleAfter` renders is retired
// and replaced (DESIGN §4: a long-lived browser grows). A retired browser closes once its renders
// are done. Knows nothing of requests or the queue.
import { shuttingDown } from '../admission/index.ts';
import { launchBrowser, type LaunchedBrowser, type LaunchOptions } from '../toolkit/browser.ts';
import { prepareSlot, type Slot } from '../toolkit/slot.ts';
import type { SandboxSettings } from '../sandbox/index.ts';

export type Log = (level: 'info' | 'warn' | 'error', msg: string, extra?: object) => void;

export interface SupervisorOptions {
  executablePath: string;
  launchArgs: string[];
  /** Renders at once: slots are kept prepared for this many plus one. */
  concurrency: number;
  recycleAfter: number;
  /** How Chromium is confined (server/sandbox; default BROWSER_SANDBOX=auto). */
  sandbox?: SandboxSettings;
  /** Its browsers start at this CPU niceness (server/toolkit/browser.ts; 0: normal priority). */
  niceness?: number;
  log?: Log;
  /** Starts one browser (default launchBrowser). Tests pass one that also keeps what it launched. */
  launch?: (opts: LaunchOptions) => Promise<LaunchedBrowser>;
  /** A browser left service. */
  onRetired?: (e: { reason: 'crashed' | 'recycled'; renders: number }) => void;
}

/** One browser process and the slots prepared in it. */
export interface Generation {
  id: number;
  launched: LaunchedBrowser;
  slots: Slot[];
  preparing: number;
  renders: number;
  active: number;
  retired: boolean;
  dead: boolean;
}

export class BrowserSupervisor {
  private gen: Promise<Generation> | undefined;
  /** The generation `gen` resolved to, known synchronously so that retire() can replace it at once. */
  private currentGen: Generation | undefined;
  private genSeq = 0;
  private closing = false;
  private readonly live = new Set<Generation>();
  /** The browser's version string (e.g. "HeadlessChrome/156.0.8078.79"), once launched. */
  browserVersion: string | undefined;

  constructor(private readonly opts: SupervisorOptions) {}

  /** Prepared slots waiting for a request. */
  get warmSlots(): number {
    let n = 0;
    for (const g of this.live) if (!g.retired && !g.dead) n += g.slots.length;
    return n;
  }

  /** True when a browser is up and answers within the timeout (never waits for one starting). */
  async ready(timeoutMs: number): Promise<boolean> {
    const g = this.currentGen;
    if (this.closing || !g || g.dead || g.retired) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    const ok = await Promise.race([
      g.launched.browser.version().then(
        () => true,
        () => false,
      ),
      late,
    ]);
    clearTimeout(timer);
    return ok;
  }

  /** The browser in service, launched if there is none (a failed launch is tried again by the next call). */
  current(): Promise<Generation> {
    if (!this.gen) {
      const p = this.launch();
      this.gen = p;
      p.catch(() => {
        if (this.gen === p) this.gen = undefined;
      });
    }
    return this.gen;
  }

  /**
   * Claims `g` for one render if it is still in service (true), in one synchronous step with the
   * check, so that it cannot be closed under the render. Another render may have retired it
   * (recycle, crash) since it was handed out: then the caller asks current() again.
   */
  claim(g: Generation): boolean {
    if (g.retired || g.dead) return false;
    g.active++;
    g.renders++;
    return true;
  }

  /** A slot prepared ahead in `g`, if one is ready. */
  takeSlot(g: Generation): Slot | undefined {
    return g.slots.shift();
  }

  /** A claimed render ended before it had a slot. */
  unclaim(g: Generation): void {
    g.active--;
    if (g.retired && g.active === 0) this.retire(g);
  }

  /** A claimed render's slot is gone: top the slots up, recycle the browser when it has served enough. */
  finished(g: Generation): void {
    g.active--;
    this.refill(g);
    if (g.renders >= this.opts.recycleAfter && !g.retired) {
      this.log('info', 'recycling browser', { generation: g.id, renders: g.renders });
      this.retire(g);
    } else if (g.retired && g.active === 0) {
      this.retire(g);
    }
  }

  /** The browser could not even close a context: it is hung, kill and replace it. */
  hung(g: Generation, afterTimeout: boolean): void {
    this.log('error', 'browser did not close a context in time; killing it', { generation: g.id, afterTimeout });
    g.launched.browser.process()?.kill('SIGKILL');
    this.retire(g, true);
  }

  /** Launches nothing more, prepares nothing more (renders in flight go on). */
  stop(): void {
    this.closing = true;
  }

  /** Closes every browser (after stop() and once the renders in flight are done). */
  async close(): Promise<void> {
    this.closing = true;
    await this.gen?.catch(() => {}); // a browser still starting is closed by launch() itself
    await Promise.all([...this.live].map((g) => g.launched.close()));
    this.live.clear();
    this.gen = undefined;
  }

  private log(...args: Parameters<Log>): void {
    this.opts.log?.(...args);
  }

  private async launch(): Promise<Generation> {
    const launched = await (this.opts.launch ?? launchBrowser)({
      executablePath: this.opts.executablePath,
      args: this.opts.launchArgs,
      sandbox: this.opts.sandbox,
      ...(this.opts.niceness ? { niceness: this.opts.niceness } : {}),
    });
    if (this.closing) {
      // close() ran while this browser was starting (e.g. the replacement after a recycle).
      await launched.close();
      throw shuttingDown();
    }
    const g: Generation = { id: ++this.genSeq, launched, slots: [], preparing: 0, renders: 0, active: 0, retired: false, dead: false };
    this.live.add(g);
    this.currentGen = g;
    launched.browser.on('disconnected', () => {
      if (!g.dead && !this.closing) this.log('warn', 'browser disconnected; replacing it', { generation: g.id });
      this.retire(g, true);
    });
    this.browserVersion = await launched.browser.version();
    const { confinement } = launched;
    this.log('info', 'browser launched', { generation: g.id, version: this.browserVersion, sandbox: confinement.sandbox, uid: confinement.uid });
    // Loud at every launch: without the sandbox a compromised renderer can open sockets around
    // the egress proxy (server/sandbox). BROWSER_SANDBOX=require makes this a start-up error.
    if (!confinement.sandbox)
      this.log(
        'warn',
        'Chromium runs WITHOUT its sandbox: a compromised renderer could reach the network around the egress proxy; set BROWSER_SANDBOX=require to refuse this',
        { generation: g.id, reason: confinement.reason },
      );
    this.refill(g);
    return g;
  }

  /**
   * Keeps concurrency + 1 slots prepared in the current generation. Called at launch and after a
   * render has finished, not when a slot is taken: preparing a context costs CPU that a render
   * in progress would otherwise have to share.
   */
  private refill(g: Generation): void {
    while (!g.retired && !g.dead && !this.closing && g.slots.length + g.preparing < this.opts.concurrency + 1) {
      g.preparing++;
      prepareSlot(g.launched.browser)
        .then((slot) => {
          if (g.retired || g.dead || this.closing) void slot.dispose();
          else g.slots.push(slot);
        })
        .catch((e) => {
          if (!g.dead) this.log('warn', 'preparing a slot failed', { err: String(e) });
        })
        .finally(() => g.preparing--);
    }
  }

  /** Takes a generation out of service; its browser closes once its renders are done. */
  private retire(g: Generation, dead = false): void {
    g.dead ||= dead;
    if (!g.retired) {
      g.retired = true;
      if (!this.closing) this.opts.onRetired?.({ reason: g.dead ? 'crashed' : 'recycled', renders: g.renders });
      if (this.currentGen === g) {
        this.currentGen = undefined;
        this.gen = undefined; // so that current() below launches the replacement now
      }
      for (const s of g.slots.splice(0)) void s.dispose();
      if (!this.closing) void this.current().catch((e) => this.log('error', 'browser launch failed', { err: String(e) }));
    }
    if (g.dead || g.active === 0) {
      this.live.delete(g);
      void g.launched.close();
    }
  }
}
