# One image for the three app processes (api, jobs, worker); docker-compose.yml picks the
# command. Build: docker build -t awp .
FROM node:20-bookworm-slim

# espeak-ng: native TTS model (run as a subprocess, never linked). ffmpeg: AAC encoding.
# python3, make, g++: node-gyp builds of native addons (better-sqlite3, @discordjs/opus).
# gcc, libespeak-ng-dev, libsoxr-dev: the long-lived engine (native/espeak-engine/, a
# separate program; libsoxr resamples to the requested rate).
RUN apt-get update \
  && apt-get install -y --no-install-recommends espeak-ng ffmpeg python3 make g++ gcc \
    libespeak-ng-dev libsoxr-dev ca-certificates \
  && rm -rf /var/lib/apt/lists/*

# The project is installed with npm 11 (it honours "allowScripts" in package.json).
RUN npm install -g npm@11 && npm cache clean --force

WORKDIR /app

# Manifests first so the dependency layer is cached across source changes.
COPY package.json package-lock.json .npmrc ./
COPY backend-sdk/package.json backend-sdk/
COPY client-sdk/package.json client-sdk/
COPY react/package.json react/
COPY protocol/package.json protocol/
COPY dashboard/package.json dashboard/
ENV ONNXRUNTIME_NODE_INSTALL=skip
RUN npm ci && npm cache clean --force

COPY . .
# Compiled JavaScript in dist/: production never runs TypeScript through tsx.
RUN npm run build && bash scripts/build-engine.sh

ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  DEV_PORT=8081 \
  DATA_DIR=/app/data
RUN mkdir -p /app/data && chown node:node /app/data
USER node

EXPOSE 8080 8081
CMD ["npm", "run", "serve"]
