# syntax=docker/dockerfile:1
# The screenshot service's image (docs/operations.md, "Running at scale"): Debian bookworm-slim with Node 24 (LTS),
# Chromium (chromium-headless-shell) and the fonts installed by the project's own
# scripts/setup-browser.sh, tini as PID 1 (it reaps Chromium's orphaned children and passes
# SIGTERM on to Node, which drains), an unprivileged user, and a HEALTHCHECK on /healthz.
# Built and run by the image tests (test/image, `npm run test:image`: podman, on a local stand-in
# for the base where no registry is reachable); test/deploy/drift.test.ts checks it against the
# scripts and variables the tests use. Pin the base by digest when you build.
# BASE_IMAGE: where no registry is reachable, a local image of the same parts
# (scripts/image/local-base.sh; the image tests build with it).
ARG BASE_IMAGE=node:24-bookworm-slim
FROM ${BASE_IMAGE}

RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# The browser and fonts first: the largest layer, and the one that changes least.
COPY scripts/setup-browser.sh scripts/setup-browser.sh
RUN bash scripts/setup-browser.sh --headless-shell-only && rm -rf /var/lib/apt/lists/*

COPY package.json package-lock.json ./
# `npm ls`: npm 10 can end a failed install ("Exit handler never called!") with status 0 and an
# empty node_modules; the build must fail there, not ship an image that cannot start.
RUN npm ci --omit=dev && npm ls --omit=dev >/dev/null && npm cache clean --force

COPY tsconfig.json README.md ./
COPY server server
COPY lib lib

# DATA_DIR (the embedded store) is used only without DATABASE_URL; TMPDIR holds Chromium's
# throwaway profiles. `node` (uid 1000) is the base image's unprivileged user: Chromium runs its
# own sandbox as it, where the runtime allows user namespaces (BROWSER_SANDBOX=auto warns where
# not; compose.yaml and deploy/kubernetes allow them and set BROWSER_SANDBOX=require).
# RUN_BATCHES=inline: the container is one process, as its health check, its process checks and its
# SIGTERM handling expect (npm start's three processes, docs/operations.md, are for one machine
# outside a container; a container-native split into API and worker services is not yet here).
RUN mkdir -p /data && chown node:node /data
USER node
ENV PORT=3000 \
    HOST=0.0.0.0 \
    RUN_BATCHES=inline \
    DATA_DIR=/data \
    CHROMIUM_PATH=/usr/lib/chromium/chromium-headless-shell
EXPOSE 3000
# The command gives up by itself before --timeout: not every engine enforces it (podman 4.3 let
# it wait two minutes on a server that accepted the connection and never answered).
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "server/main.ts"]
