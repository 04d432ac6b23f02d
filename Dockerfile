# syntax=docker/dockerfile:1
#
# The service image: one image for every role (API `serve`, `worker`, one-shot `migrate`); the
# command picks the role. See docs/deploy.md. Not built on the development machine (it has no
# access to an image registry); the same topology is tested as plain processes by
# test/process/multi-process.test.ts.
#
#   docker build -t docuvault .
#   docker run --rm --init -p 8080:8080 -e ADMIN_API_KEY=... -v docuvault-data:/app/data docuvault
#
# There is no compile step: Node 24 runs the TypeScript sources directly (type stripping).

ARG NODE_IMAGE=node:24-slim

# ---- dependencies: production packages only, built with the tools native modules may need ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# sharp and @napi-rs/canvas ship prebuilt binaries for linux-x64/arm64 (glibc); the compilers are
# only a fallback for a platform without one, and never reach the final image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# `node` is a devDependency (it pins Node 24 for npm scripts on older systems); --omit=dev leaves it
# out, and the image's own Node 24 runs the service.
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
# ffmpeg lets workers take the audio track of videos for transcription (optional, ~100 MB).
ARG INSTALL_FFMPEG=false
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && if [ "$INSTALL_FFMPEG" = "true" ]; then apt-get install -y --no-install-recommends ffmpeg; fi \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/app/data \
    NODE_COMPILE_CACHE=/app/.compile-cache \
    MALLOC_ARENA_MAX=2
WORKDIR /app

COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json package-lock.json ./
COPY --chown=root:root src ./src

# Non-root: the code is owned by root and read-only to the service; only DATA_DIR (SQLite file,
# local blobs, a generated admin key — none of them used in scale-out) and /tmp are writable.
RUN mkdir -p /app/data /app/.compile-cache && chown node:node /app/data /app/.compile-cache
USER node
# Fill Node's compile cache (type-stripped sources and their bytecode) once, at build time: a
# process that finds every module there never loads the TypeScript stripper, ~20 MiB less RSS per
# process (docs/benchmarks.md, idle memory). `migrate` on a scratch SQLite file loads the whole graph.
RUN DATA_DIR=/tmp/warm ADMIN_API_KEY=build-only-warmup-key-0000 LOG_LEVEL=silent node src/main.ts migrate \
 && rm -rf /tmp/warm

EXPOSE 8080
# Readiness: the database and the blob store answer. Worker containers have no HTTP port: their
# compose service turns this check off (docs/deploy.md, health probes).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains requests and running jobs (SHUTDOWN_TIMEOUT_MS, default 10 s): give the container
# more than that before it is killed (`stop_grace_period` / `terminationGracePeriodSeconds`).
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=4", "src/main.ts", "serve"]
