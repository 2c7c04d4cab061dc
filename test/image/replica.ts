// One replica of the image, started as compose.yaml's `screenshot` service (test/image/compose.ts)
// on a free loopback port, ready once it logs "listening on"; stopped as Compose stops it
// (`podman stop` with the service's stop_grace_period: STOPSIGNAL SIGTERM to tini, then SIGKILL).
import { TEST_KEY } from '../support/server.ts';
import { composeEnvironment, composeRunArgs, composeService, durationSeconds } from './compose.ts';
import { freePort, podman, runContainer, uniqueName, type Container } from './engine.ts';

export interface ImageReplica extends Container {
  port: number;
  url: string;
  env: Record<string, string>;
  /** `podman stop` as Compose does; resolves when the container has stopped. */
  stop(): Promise<void>;
}

export const SVC = composeService();

export const GRACE_S = Math.ceil(durationSeconds(SVC.stop_grace_period ?? '10s'));
/** compose.yaml's environment (what the drain and cluster checks hold it to). */
export const COMPOSE_ENV = composeEnvironment(SVC, { API_KEYS: TEST_KEY }, {});

export async function startImageReplica(image: string, what: string, overrides: Record<string, string>): Promise<ImageReplica> {
  const port = await freePort();
  // HOST: with the host's network, the server listens on loopback only (the image says 0.0.0.0).
  const env = composeEnvironment(SVC, { API_KEYS: TEST_KEY }, { HOST: '127.0.0.1', PORT: String(port), ...overrides });
  const c = runContainer(uniqueName(what), composeRunArgs(SVC, env), image);
  const until = Date.now() + 180_000;
  let gone: number | null | undefined;
  void c.exited.then((code) => (gone = code));
  while (!/"msg":"listening on /.test(c.output())) {
    if (gone !== undefined) throw new Error(`${c.name} exited (${gone}) before listening:\n${c.output().slice(-3000)}`);
    if (Date.now() > until) throw new Error(`${c.name}: no "listening on" within 180 s:\n${c.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    ...c,
    port,
    url: `http://127.0.0.1:${port}`,
    env,
    async stop() {
      const r = await podman(['stop', '-t', String(GRACE_S), c.name], { timeoutMs: (GRACE_S + 30) * 1000 });
      if (r.code !== 0) throw new Error(`podman stop ${c.name}: ${r.stderr.trim()}`);
    },
  };
}
