import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { browserSandbox, ConfigError } from '../config.ts';
import { DEFAULT_SANDBOX, SandboxUnavailable, launchFailureReason, launchPlans, prepareProfile, wrapCommand } from './index.ts';

const user = { uid: DEFAULT_SANDBOX.uid, gid: DEFAULT_SANDBOX.gid };

test('plans: most confined first; require has only the sandbox, off only --no-sandbox as ourselves', () => {
  assert.deepEqual(launchPlans(DEFAULT_SANDBOX, true), [
    { sandbox: true, user },
    { sandbox: false, user },
    { sandbox: false, user: null },
  ]);
  assert.deepEqual(launchPlans(DEFAULT_SANDBOX, false), [
    { sandbox: true, user: null },
    { sandbox: false, user: null },
  ]);
  assert.deepEqual(launchPlans({ ...DEFAULT_SANDBOX, mode: 'require' }, true), [{ sandbox: true, user }]);
  assert.deepEqual(launchPlans({ ...DEFAULT_SANDBOX, mode: 'require' }, false), [{ sandbox: true, user: null }]);
  assert.deepEqual(launchPlans({ ...DEFAULT_SANDBOX, mode: 'off' }, true), [{ sandbox: false, user: null }]);
});

test('BROWSER_SANDBOX and BROWSER_SANDBOX_USER are validated, naming the variable', () => {
  assert.deepEqual(browserSandbox({}), DEFAULT_SANDBOX);
  assert.deepEqual(browserSandbox({ BROWSER_SANDBOX: 'require', BROWSER_SANDBOX_USER: '1001:1002' }), { mode: 'require', uid: 1001, gid: 1002 });
  assert.throws(
    () => browserSandbox({ BROWSER_SANDBOX: 'yes' }),
    (e) => e instanceof ConfigError && /^BROWSER_SANDBOX must be one of auto, require, off/.test(e.message),
  );
  for (const bad of ['0:0', '0:1000', 'nobody', '65534', '-1:5', '1:4294967295']) {
    assert.throws(() => browserSandbox({ BROWSER_SANDBOX_USER: bad }), /BROWSER_SANDBOX_USER must be a numeric uid:gid other than root/, bad);
  }
});

test('as another user, Chromium is started through setpriv with that uid, gid and no supplementary groups', () => {
  assert.deepEqual(wrapCommand({ sandbox: true, user: null }, '/c', ['--a']), { command: '/c', args: ['--a'] });
  const w = wrapCommand({ sandbox: true, user }, '/c', ['--a']);
  assert.match(w.command, /\/setpriv$/);
  assert.deepEqual(w.args, ['--reuid=65534', '--regid=65534', '--clear-groups', '--', '/c', '--a']);
});

test('the profile is handed to the user only where it can reach it', { skip: process.getuid?.() === 0 ? false : 'chown needs root' }, () => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'sandbox-unit-'));
  try {
    const profile = path.join(base, 'profile');
    mkdirSync(profile, { mode: 0o700 });
    chmodSync(base, 0o700);
    assert.throws(
      () => prepareProfile(profile, { sandbox: true, user }),
      (e) => e instanceof SandboxUnavailable && e.message.includes(`${base} is not searchable`),
    );
    chmodSync(base, 0o711);
    prepareProfile(profile, { sandbox: true, user });
    assert.equal(statSync(profile).uid, user.uid);
    prepareProfile(profile, { sandbox: false, user: null }); // nothing to do as ourselves
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("a failed launch is explained by the telling line, not by Puppeteer's troubleshooting text", () => {
  const err = new Error(
    'Failed to launch the browser process!\n[1:1:ERROR:dbus/bus.cc:405] Failed to connect to the bus\n[2:2:FATAL:zygote_host_impl_linux.cc:130] No usable sandbox! ...\n\nTROUBLESHOOTING: https://pptr.dev/troubleshooting',
  );
  assert.match(launchFailureReason(err), /No usable sandbox/);
  assert.equal(launchFailureReason(new Error('Timed out after 30000 ms')), 'Timed out after 30000 ms');
});
