#!/usr/bin/env bash
# `npm test`: every test of the project, against real parts: the browser (installed by
# scripts/setup-browser.sh if missing), a real PostgreSQL (scripts/setup-postgres.sh), real HTTP
# over loopback. Stages: type check -> unit and integration tests (node:test) -> security battery
# inside a network namespace of its own -> the reference deployment (API replicas behind HAProxy, workers) ->
# conformance suite (packed and installed) against a fresh reference server (twice for core) -> mutants -> the core
# profile against a second engine (the Firefox subject) -> core against both again, side by side, under load.
# Ends with one line "tests: N passed, N failed".
# Each long stage runs under `timeout N` (a hang fails its stage, never the whole CI run): the caps
# add up to 4870 s (81 min; the two side-by-side stages counted once) against CI's 90. A quiet 2-core run takes about 40% of that; each cap
# leaves room for the same stage with every core kept busy by other processes (about 1.7x slower).
set -uo pipefail
cd "$(dirname "$0")/.."
export NODE_OPTIONS="${NODE_OPTIONS:-} --no-warnings=ExperimentalWarning"

pass=0; fail=0; failed_stages=()
t_start=$(date +%s); t_stage=
stage() { local now; now=$(date +%s); [ -z "$t_stage" ] || echo "(stage took $((now - t_stage)) s)"; t_stage=$now; echo; echo "=== $*"; }
count_node() { # adds the "# pass N" / "# fail N" lines of node's test runner output in $1
  local p f
  p=$(grep -E '^(# |ℹ )pass [0-9]+' "$1" | tail -1 | awk '{print $3}'); f=$(grep -E '^(# |ℹ )fail [0-9]+' "$1" | tail -1 | awk '{print $3}')
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
}

stage "browser"
CHROMIUM_PATH="$(bash scripts/setup-browser.sh | tail -1)" || { echo "no browser"; exit 1; }
export CHROMIUM_PATH
"$CHROMIUM_PATH" --version 2>/dev/null || true

stage "type check, beside lint (npm run lint: ESLint, eslint.config.js; the layer order and cycles, .dependency-cruiser.mjs) and format (Prettier: .prettierrc.json)"
# tsc and ESLint are each one thread: side by side on two cores
tsc_log=$(mktemp)
npx --no-install tsc --noEmit -p . > "$tsc_log" 2>&1 &
tsc_pid=$!
if npm run --silent lint; then pass=$((pass + 1)); else fail=$((fail + 1)); failed_stages+=(lint); fi
if npx --no-install prettier --check . >/dev/null; then pass=$((pass + 1)); else npx --no-install prettier --list-different .; echo "run npm run format"; fail=$((fail + 1)); failed_stages+=(format); fi
if wait "$tsc_pid"; then echo "type check: pass"; pass=$((pass + 1)); else cat "$tsc_log"; fail=$((fail + 1)); failed_stages+=(typecheck); fi

stage "PostgreSQL for the ledger tests"
pg_env=$(mktemp)
if bash scripts/setup-postgres.sh start > "$pg_env"; then
  # shellcheck disable=SC1090
  source "$pg_env"
  trap 'bash scripts/setup-postgres.sh stop "${PG_TEST_DIR:-}" >/dev/null 2>&1 || true' EXIT
  echo "TEST_DATABASE_URL is set"
else
  echo "PostgreSQL could not be started"; fail=$((fail + 1)); failed_stages+=(postgres)
fi

stage "HAProxy for the cluster tests"
if HAPROXY_PATH="$(bash scripts/setup-haproxy.sh | tail -1)"; then export HAPROXY_PATH; "$HAPROXY_PATH" -v | head -1; else echo "no HAProxy"; fail=$((fail + 1)); failed_stages+=(haproxy); fi

stage "unit and integration tests"
# Two kinds of file run after the others, one at a time. The heaviest (a thousand renders; batches
# killed mid-way; npm start's three processes; the consent-library battery): beside two other files
# they starved the rest of both cores. And those whose verdict is about time (a 2.5-, 3- or
# 6-second budget, an idle window that a starved renderer overran, the 100-megapixel capture in the
# spec's 20 s): with three files at once the load stood at 8-11 on two cores and each failed in a
# fresh CI run, its capture or its page's script too slow for its budget.
heavy=(test/api/soak.test.ts test/api/batches-crash.test.ts test/api/batches-worker.test.ts test/consent/battery.test.ts
  test/api/overload.test.ts test/api/tall-budget.test.ts test/api/wait-timeout.test.ts test/api/pool.test.ts test/api/request.test.ts)
mapfile -t files < <(find lib server test/api test/consent test/mcp test/playground test/deploy test/docs test/harness test/house conformance/self-test -name '*.test.ts' 2>/dev/null | sort | grep -vxF -f <(printf '%s\n' "${heavy[@]}"))
log=$(mktemp)
# timeout: a hang must fail this stage, not eat CI's 90 minutes
# beside the spec reporter, one line per failed test with the machine's load, memory and busiest
# processes at that moment (test/support/failure-context.ts); at the end, the slowest files
# (test/support/file-times.ts)
machine=(--test-reporter=spec --test-reporter-destination=stdout --test-reporter=./test/support/failure-context.ts --test-reporter-destination=stdout)
timeout 1300 node --import tsx --test --test-concurrency=3 "${machine[@]}" --test-reporter=./test/support/file-times.ts --test-reporter-destination=stdout --test-timeout=300000 "${files[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
count_node "$log"
[ "$status" = 0 ] || failed_stages+=(node-tests)

stage "the heaviest and the time-bound files, one at a time: ${heavy[*]}"
hlog=$(mktemp)
timeout 1000 node --import tsx --test --test-concurrency=1 "${machine[@]}" --test-timeout=300000 "${heavy[@]}" 2>&1 | tee "$hlog"
status=${PIPESTATUS[0]}
count_node "$hlog"
[ "$status" = 0 ] || failed_stages+=(heavy-tests)

if [ -x test/security/run-in-netns.sh ] && ls test/security/*.test.ts >/dev/null 2>&1; then
  stage "security battery (own network namespace: only loopback exists)"
  slog=$(mktemp)
  timeout 300 bash test/security/run-in-netns.sh "${machine[@]}" test/security/*.test.ts 2>&1 | tee "$slog"
status=${PIPESTATUS[0]}
  count_node "$slog"
  [ "$status" = 0 ] || failed_stages+=(security)
fi

stage "reference deployment: 3 API replicas behind HAProxy and 2 batch workers on PostgreSQL (rolling restart, crash, saturation, a batch with a worker killed, ledger)"
klog=$(mktemp)
started=$(date +%s)
timeout 300 node --import tsx --test "${machine[@]}" --test-timeout=280000 test/cluster/*.test.ts 2>&1 | tee "$klog"
status=${PIPESTATUS[0]}
count_node "$klog"
[ "$status" = 0 ] || failed_stages+=(cluster)
echo "reference deployment stage: $(( $(date +%s) - started )) s"

stage "the image: Dockerfile, compose.yaml, deploy/ built and run in podman (npm run test:image, test/image)"
# Installs podman and makes its base image when missing (cached for the next run); one line per check.
ilog=$(mktemp)
timeout 420 bash scripts/image/test.sh 2>&1 | tee "$ilog"
status=${PIPESTATUS[0]}
read -r p f < <(grep -Eo '^image: [0-9]+ passed, [0-9]+ failed' "$ilog" | tail -1 | grep -Eo '[0-9]+' | tr '\n' ' '; echo)
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
if [ "$status" != 0 ]; then failed_stages+=(image); [ "${f:-0}" = 0 ] && fail=$((fail + 1)); fi

stage "conformance suite, packed and installed as its users get it (--installed), against a fresh reference server (core, reference, security, extensions, properties)"
# core runs again twice (the second time on a warm cache) in the under-load stage below. The
# exact-limit cases (117: 1m52s of wall time at load 17-21 on 2 cores, mostly waits) and the six
# relations (2m12s at load 19-22) are new here, and the 16 mutants they kill in the next stage; the
# caps grew by 120 s and 90 s, and the under-load stage's by 100 s (its core cases, Firefox's
# relations at --runs 8; measured only on a shared, loaded machine: to be checked on a quiet run). The
# properties draw with a fixed seed, so that CI is repeatable (run-mutants.ts MUTANT_SEED: this
# run is the baseline of the mutants' properties).
PROPERTIES_SEED=20251127
clog=$(mktemp)
timeout 660 node --import tsx conformance/reference/run-against-reference.ts --installed --profile reference,security,extensions,properties --seed "$PROPERTIES_SEED" 2>&1 | tee "$clog"
status=${PIPESTATUS[0]}
read -r p f < <(grep -Eo '^ +total +[0-9]+ passed, [0-9]+ failed' "$clog" | tail -1 | grep -Eo '[0-9]+' | tr '\n' ' '; echo)
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
if [ "$status" != 0 ]; then failed_stages+=(conformance); [ "${f:-0}" = 0 ] && fail=$((fail + 1)); fi

stage "the suite rejects deliberately broken implementations (mutants)"
mlog=$(mktemp)
baseline=(); [ "$status" = 0 ] && [ -f conformance-report/report.json ] && baseline=(--baseline-from conformance-report/report.json)  # the full run above is the baseline
timeout 330 node --import tsx conformance/mutants/run-mutants.ts "${baseline[@]}" 2>&1 | tee "$mlog"
status=${PIPESTATUS[0]}
read -r k t < <(grep -Eo '^mutant kill rate: [0-9]+/[0-9]+' "$mlog" | tail -1 | grep -Eo '[0-9]+' | tr '\n' ' '; echo)
pass=$((pass + ${k:-0})); fail=$((fail + ${t:-0} - ${k:-0}))  # a killed mutant is a passed check
if [ "$status" != 0 ]; then failed_stages+=(mutants); [ "${t:-0}" = "${k:-0}" ] && fail=$((fail + 1)); fi

stage "under load: core against the reference twice on one server (cache on), beside core against the Firefox subject, every CPU kept busy"
# Verdicts must not depend on timing or load: one CPU-bound neighbour per core at normal priority
# (as on a shared CI runner), and the two suites side by side, each the other's load too; every
# core case must pass, both times. The Firefox subject is an independent small implementation on
# Firefox ESR (a second engine): it fails on an unexpected failure or an unexpected pass of its
# expectations.json. Their outputs are printed one after the other once both are done.
if FIREFOX_PATH="$(bash scripts/setup-firefox.sh | tail -1)"; then export FIREFOX_PATH; else unset FIREFOX_PATH; fi
busy=()
busy_stop() { [ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null; wait "${busy[@]}" 2>/dev/null; busy=(); }
trap 'busy_stop; exit 130' INT TERM
for _ in $(seq "$(nproc)"); do node -e 'for (;;) {}' & busy+=($!); done
echo "${#busy[@]} busy neighbours; $(uptime)"
llog=$(mktemp); flog=$(mktemp)
timeout 560 node --import tsx conformance/reference/run-against-reference.ts --profile core --twice --report conformance-report/under-load > "$llog" 2>&1 &
ref_pid=$!
if [ -n "${FIREFOX_PATH:-}" ]; then
  # properties too, briefly (--runs 8): a second engine is held to the same oracles.
  timeout 560 node --import tsx conformance/self-test/subjects/firefox/run-core.ts --profile core,properties --seed "$PROPERTIES_SEED" --runs 8 --report conformance-report/firefox-under-load > "$flog" 2>&1 &
  ff_pid=$!
fi
wait "$ref_pid"
status=$?
cat "$llog"
read -r p f < <(grep -Eo '^ +total +[0-9]+ passed, [0-9]+ failed' "$llog" | tail -1 | grep -Eo '[0-9]+' | tr '\n' ' '; echo)
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
if [ "$status" != 0 ]; then failed_stages+=(under-load-reference); [ "${f:-0}" = 0 ] && fail=$((fail + 1)); fi
if [ -n "${FIREFOX_PATH:-}" ]; then
  wait "$ff_pid"
  status=$?
  echo; cat "$flog"
  read -r p f < <(grep -Eo '^ +total +[0-9]+ passed, [0-9]+ failed' "$flog" | tail -1 | grep -Eo '[0-9]+' | tr '\n' ' '; echo)
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
  if [ "$status" != 0 ]; then failed_stages+=(under-load-firefox); [ "${f:-0}" = 0 ] && fail=$((fail + 1)); fi
else
  echo "no Firefox"; fail=$((fail + 1)); failed_stages+=(under-load-firefox)
fi
echo "$(uptime)"
busy_stop
trap - INT TERM

echo "(stage took $(( $(date +%s) - t_stage )) s; all stages $(( $(date +%s) - t_start )) s)"
echo
# A CI log is often read from its end: repeat why each failing node:test stage failed (the spec
# reporter's "failing tests" section, with the assertion and its message; TAP's "not ok" blocks
# for the security stage), bounded.
for f in "$log" "$hlog" "${slog:-}" "$klog"; do
  [ -n "$f" ] && [ -f "$f" ] || continue
  if grep -q '^✖ failing tests:' "$f"; then why=$(sed -n '/^✖ failing tests:/,$p' "$f")
  elif grep -q '^ *not ok ' "$f"; then why=$(grep -A14 '^ *not ok ' "$f")
  else continue; fi
  echo "--- why, from $(basename "$f"):"; grep -v '^ *at ' <<<"$why" | head -60
  grep '^machine at failure:' "$f" | head -10
done
[ ${#failed_stages[@]} -eq 0 ] || echo "failed stages: ${failed_stages[*]}"
echo "tests: $pass passed, $fail failed"
[ ${#failed_stages[@]} -eq 0 ] && [ "$fail" = 0 ]
