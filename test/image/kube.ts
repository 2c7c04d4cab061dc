// deploy/kubernetes' Deployment run by a real Kubernetes YAML runner: `podman kube play` (podman
// 4.3), on a copy that differs only where this machine forces it: one replica, the image built
// here, a free port for PORT/containerPort (the pod shares the host's network), and no `ports`
// list (podman 4.3 publishes every containerPort on the host, which host networking refuses; the
// probes' named port is resolved to the number first). The Secret is made as podman reads it.
// Podman runs neither the probes as the kubelet does (it turns a liveness probe into a `curl`
// healthcheck, and the image has no curl) nor preStop, the Service, the PDB or the HPA: this test
// probes as the kubelet would (httpGet, each probe's timeout and thresholds) and says the rest.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { show } from '../support/http.ts';
import { decode } from '../support/image.ts';
import { TEST_KEY } from '../support/server.ts';
import { sleep } from '../support/wait.ts';
import { existing, freePort, must, podman, recordPod, recordSecret } from './engine.ts';
import { glyphPage, glyphViewport, judgeGlyphs } from './glyphs.ts';
import { send } from './load.ts';
import { containerProcs, isServer } from './procs.ts';
import { check, notRun } from './report.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Probe {
  httpGet: { path: string; port: string | number };
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
}

/** One httpGet probe as the kubelet runs it: 200-399 within timeoutSeconds is success. */
async function probeOnce(p: Probe, port: number): Promise<boolean> {
  const r = await fetch(`http://127.0.0.1:${port}${p.httpGet.path}`, { signal: AbortSignal.timeout((p.timeoutSeconds ?? 1) * 1000) }).catch(() => undefined);
  return !!r && r.status >= 200 && r.status < 400;
}

export async function kubeChecks(image: string, databaseUrl: string): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'image-kube-'));
  const dep = parse(readFileSync(path.join(ROOT, 'deploy/kubernetes/deployment.yaml'), 'utf8'));
  const spec = dep.spec.template.spec;
  const [ctr] = spec.containers;
  const pod = `${dep.metadata.name}-pod-0`;
  const name = `${pod}-${ctr.name}`;
  const port = await freePort();
  try {
    const started = await check(
      'kube: podman kube play of deploy/kubernetes/deployment.yaml starts its pod (1 replica, the image built here, host network)',
      async () => {
        // The copy: what the test changes, nothing else.
        const portName = ctr.ports[0].name;
        const containerPort = ctr.ports[0].containerPort;
        dep.spec.replicas = 1;
        ctr.image = image;
        const envPort = ctr.env.find((e: { name: string }) => e.name === 'PORT');
        assert.equal(String(envPort.value), String(containerPort), 'PORT is the containerPort');
        envPort.value = String(port);
        for (const p of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
          if (ctr[p].httpGet.port === portName) ctr[p].httpGet.port = port;
        }
        delete ctr.ports;
        const file = path.join(dir, 'deployment.yaml');
        writeFileSync(file, stringify(dep));
        // The Secret, as podman 4.3 reads secretKeyRef: a podman secret holding a JSON map of base64 values.
        const values: Record<string, string> = { 'database-url': databaseUrl, 'api-keys': TEST_KEY };
        const refs = ctr.env
          .filter((e: { valueFrom?: unknown }) => e.valueFrom)
          .map((e: { valueFrom: { secretKeyRef: { name: string; key: string } } }) => e.valueFrom.secretKeyRef);
        for (const secret of new Set(refs.map((r: { name: string }) => r.name)) as Set<string>) {
          const data = Object.fromEntries(
            refs
              .filter((r: { name: string }) => r.name === secret)
              .map((r: { key: string }) => {
                assert.ok(r.key in values, `the test has a value for secret key ${r.key}`);
                return [r.key, Buffer.from(values[r.key]!).toString('base64')];
              }),
          );
          await podman(['secret', 'rm', secret]);
          recordSecret(secret);
          const dataFile = path.join(dir, `${secret}.json`);
          writeFileSync(dataFile, JSON.stringify(data), { mode: 0o600 });
          await must(['secret', 'create', secret, dataFile]);
        }
        recordPod(pod);
        await must(['kube', 'play', '--replace', '--network', 'host', file], { timeoutMs: 180_000 });
        const state = (await existing(name).inspect('.State.Status')) as string;
        assert.equal(state, 'running', `the container runs: ${await existing(name).logs()}`);
        return `pod ${pod} running; copy's changes: replicas 1, image ${image}, PORT and containerPort ${containerPort} -> ${port}, ports list dropped (probes: port ${portName} -> ${port})`;
      },
    );
    if (!started) {
      for (const n of ['kube probes', 'kube securityContext', 'kube environment', 'kube capture', 'kube termination']) notRun(n, 'the pod did not start');
      return;
    }
    const c = existing(name);

    await check('kube probes, as the kubelet runs them (httpGet, timeouts, thresholds): startup, then readiness and liveness succeed', async () => {
      const t0 = Date.now();
      const s: Probe = ctr.startupProbe;
      let ok = false;
      for (let i = 0; i < (s.failureThreshold ?? 3) && !ok; i++) {
        ok = await probeOnce(s, port);
        if (!ok) await sleep((s.periodSeconds ?? 10) * 1000);
      }
      assert.ok(ok, `startupProbe ${s.httpGet.path} did not succeed within ${s.failureThreshold} x ${s.periodSeconds} s:\n${(await c.logs()).slice(-2000)}`);
      const startMs = Date.now() - t0;
      assert.ok(await probeOnce(ctr.readinessProbe, port), `readinessProbe ${ctr.readinessProbe.httpGet.path}`);
      assert.ok(await probeOnce(ctr.livenessProbe, port), `livenessProbe ${ctr.livenessProbe.httpGet.path}`);
      return `startupProbe ${s.httpGet.path} passed after ${startMs} ms (allowed ${(s.failureThreshold ?? 3) * (s.periodSeconds ?? 10)} s); readinessProbe ${ctr.readinessProbe.httpGet.path} and livenessProbe ${ctr.livenessProbe.httpGet.path} pass within their ${ctr.readinessProbe.timeoutSeconds} s and ${ctr.livenessProbe.timeoutSeconds} s`;
    });

    await check(
      'kube securityContext in force (/proc inside the pod): runAsUser/Group, no capabilities, no privilege escalation, seccomp Unconfined, read-only root with writable /tmp',
      async () => {
        const server = (await containerProcs(c)).find(isServer);
        assert.ok(server, 'the server process');
        const sc = { ...spec.securityContext, ...ctr.securityContext };
        assert.equal(server.uid, sc.runAsUser, 'runAsUser');
        assert.equal(server.gid, sc.runAsGroup, 'runAsGroup');
        assert.deepEqual(ctr.securityContext.capabilities.drop, ['ALL']);
        assert.equal(BigInt(`0x${server.capEff}`), 0n, `no effective capabilities (CapEff ${server.capEff})`);
        assert.equal(BigInt(`0x${server.capBnd}`), 0n, `capabilities dropped from the bounding set (CapBnd ${server.capBnd})`);
        assert.equal(sc.allowPrivilegeEscalation, false);
        assert.equal(server.noNewPrivs, 1, 'no_new_privs (allowPrivilegeEscalation: false)');
        assert.equal(sc.seccompProfile.type, 'Unconfined');
        assert.equal(server.seccomp, 0, 'no seccomp filter on the server (seccompProfile Unconfined)');
        assert.equal(sc.readOnlyRootFilesystem, true);
        const ro = await c.exec(['touch', '/app/written']);
        assert.notEqual(ro.code, 0, 'the root file system refuses writes');
        assert.match(ro.stderr, /Read-only file system/);
        for (const m of ctr.volumeMounts) {
          const w = await c.exec(['touch', `${m.mountPath}/written`]);
          assert.equal(w.code, 0, `${m.mountPath} (emptyDir ${m.name}) is writable: ${w.stderr}`);
        }
        return `uid ${server.uid} gid ${server.gid}, CapEff ${server.capEff}, CapBnd ${server.capBnd}, NoNewPrivs 1, Seccomp 0; / read-only; ${ctr.volumeMounts.map((m: { mountPath: string }) => m.mountPath).join(', ')} writable`;
      },
    );

    await check('kube environment: every variable of the Deployment (values and Secret keys) reaches the server', async () => {
      const server = (await containerProcs(c)).find(isServer)!;
      const environ = (await c.exec(['cat', `/proc/${server.pid}/environ`])).stdout.split('\0');
      const got = Object.fromEntries(environ.filter(Boolean).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
      const secrets: Record<string, string> = { 'database-url': databaseUrl, 'api-keys': TEST_KEY };
      for (const e of ctr.env as { name: string; value?: string; valueFrom?: { secretKeyRef: { key: string } } }[]) {
        const want = e.value ?? secrets[e.valueFrom!.secretKeyRef.key];
        assert.equal(got[e.name], want, `${e.name}`);
      }
      return `${ctr.env.length} variables: ${ctr.env.map((e: { name: string }) => e.name).join(', ')}`;
    });

    await check('kube capture: the pod answers POST /v1/screenshot (sandboxed browser, fonts drawn)', async () => {
      const r = await send(`http://127.0.0.1:${port}`, { html: glyphPage(), viewport: glyphViewport });
      assert.equal(r.status, 200, show(r));
      const { failures } = judgeGlyphs(await decode(r.body));
      assert.deepEqual(failures, []);
      const launched = (await c.logs()).split('\n').find((l) => l.includes('"msg":"browser launched"'));
      assert.equal(JSON.parse(launched ?? '{}').sandbox, true, `BROWSER_SANDBOX=require: the browser launched sandboxed (${launched})`);
      return `${r.body.length} bytes PNG, every glyph drawn; browser launched with sandbox: true`;
    });

    await check(
      `kube termination: SIGTERM (podman pod stop, terminationGracePeriodSeconds ${spec.terminationGracePeriodSeconds}) ends the container with status 0`,
      async () => {
        const t0 = Date.now();
        await must(['pod', 'stop', '-t', String(spec.terminationGracePeriodSeconds), pod], { timeoutMs: (spec.terminationGracePeriodSeconds + 30) * 1000 });
        const code = await c.inspect('.State.ExitCode');
        assert.equal(code, 0, `exit status: ${(await c.logs()).slice(-1500)}`);
        return `exit 0 after ${Date.now() - t0} ms (podman runs no preStop hook: the Service's endpoint removal it waits for does not exist here)`;
      },
    );
  } finally {
    await podman(['kube', 'down', path.join(dir, 'deployment.yaml')]);
    rmSync(dir, { recursive: true, force: true });
  }
}
