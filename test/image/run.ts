// `npm run test:image` (scripts/image/test.sh sets up the engine, the base, PostgreSQL and HAProxy,
// then runs this): the deployment artefacts built and run for real in a container engine.
//   build      the image from the Dockerfile; a code change rebuilds only the code's layers
//   container  one container as compose.yaml starts a replica: fonts (pixels), the sandbox (/proc),
//              the HEALTHCHECK, processes left behind, the drain on SIGTERM (test/image/single.ts)
//   cluster    replicas of the image behind the project's HAProxy on one PostgreSQL: a rolling
//              restart under load, 0 failed, ledger exact (test/image/cluster.ts)
//   kube       `podman kube play` of deploy/kubernetes' Deployment (test/image/kube.ts)
// One line per check, then "image: N passed, N failed"; exit status 1 when any failed.
// Every container reaches only loopback: the fixture server (EGRESS_ALLOW) and PostgreSQL.
import { startFixture, type Fixture } from '../support/fixture.ts';
import { postgresStore, type TestStore } from '../support/stores.ts';
import { buildImage, IMAGE, rebuildAfterCodeChange } from './build.ts';
import { clusterChecks } from './cluster.ts';
import { removeAll, removeLeftovers } from './engine.ts';
import { kubeChecks } from './kube.ts';
import { check, notRun, summary } from './report.ts';
import { singleContainerChecks } from './single.ts';

const need = (name: string) => {
  const v = process.env[name]?.trim();
  if (!v) {
    console.error(`test/image/run.ts: ${name} is not set (run it through scripts/image/test.sh)`);
    process.exit(2);
  }
  return v;
};
const base = need('BASE_IMAGE');
need('CONTAINERS_CONF');
need('TEST_DATABASE_URL');
const haproxy = need('HAPROXY_PATH');

const t0 = Date.now();
let fx: Fixture | undefined;
const stores: TestStore[] = [];
const store = async () => {
  const s = await postgresStore();
  stores.push(s);
  return s.config().databaseUrl!;
};
const cleanup = async () => {
  await removeAll();
  await fx?.close();
  for (const s of stores) await s.destroy().catch(() => {});
};
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => void cleanup().finally(() => process.exit(130)));
}

try {
  const stale = await removeLeftovers();
  if (stale.length) console.log(`(removed ${stale.length} containers an earlier run left: ${stale.join(', ')})`);
  const built = await check('build: the image from the Dockerfile (podman build, docker format)', () => buildImage(base));
  if (!built) {
    for (const n of ['layers', 'container', 'cluster', 'kube']) notRun(n, 'the image did not build');
  } else {
    await check('layers: a code change rebuilds only the code (browser and node_modules layers from the cache)', () => rebuildAfterCodeChange(base));
    fx = await startFixture();
    await singleContainerChecks(IMAGE, fx, await store());
    await clusterChecks(IMAGE, fx, await store(), haproxy);
    await kubeChecks(IMAGE, await store());
  }
} catch (e) {
  // A failure outside any check (the fixture, the database): the run fails with it.
  notRun('image tests', `${e instanceof Error ? e.stack : e}`);
} finally {
  await cleanup();
}
console.log(`(image tests: ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
const { failed } = summary();
process.exit(failed === 0 ? 0 : 1);
