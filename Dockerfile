# The bot's image, built the way the README builds: npm ci, npm run build, then node dist/main.js.
# Build: docker build -t guarded-agent-bot .   Run: docker compose up (compose.yaml: the bot and Redis).
# See docs/deploying.md. Checked by `npm run lint:docker` in CI; it could not be built or run there.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# sqlite3 compiles from source when no prebuilt binary fits the platform; sharp brings its own libvips.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The data folder: the SQLite store and its key files (approval.key), the files answers carry. Keep it on a volume.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The exec form: node is PID 1 and gets the SIGTERM itself (no shell in between); exit 0 after a graceful stop.
CMD ["node", "--max-old-space-size=512", "dist/main.js"]
