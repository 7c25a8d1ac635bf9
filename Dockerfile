# The reference server as a container: compiled in one stage, run from a slim one as a non-root user.
#   docker build -t notification-handlers-server .
#   docker run -p 8080:8080 -v nh-data:/data notification-handlers-server
# Keys: docker run --rm -v nh-data:/data notification-handlers-server keys create --user alice
# PostgreSQL instead of the SQLite file in /data (any number of containers on one database):
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://nh:secret@db:5432/nh notification-handlers-server

FROM node:24-bookworm-slim AS build
WORKDIR /src
# Scripts off: `prepare` would build before the sources are copied.
COPY package.json package-lock.json tsconfig.json ./
COPY server/package.json server/tsconfig.json server/
COPY shared/package.json shared/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY sdk sdk
COPY shared shared
COPY server server
# The server package's own build: its files and what they import as #shared (shared/, sdk/client/).
RUN npx tsc -p server/tsconfig.json
# The package as npm would install it: its dist/ and its dependencies alone, at the lockfile's versions.
RUN mkdir /out && cp -r server/dist server/package.json /out/
WORKDIR /out
RUN npm install --omit=dev --no-audit --no-fund --ignore-scripts --package-lock=false \
  "fastify@$(node -p "require('/src/package-lock.json').packages['node_modules/fastify'].version")" \
  "pg@$(node -p "require('/src/package-lock.json').packages['node_modules/pg'].version")" \
  "zod@$(node -p "require('/src/package-lock.json').packages['node_modules/zod'].version")"

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  DATABASE_URL=/data/notification-handlers.db
WORKDIR /app
COPY --from=build /out /app
# The image's `node` user, by number: an orchestrator can then check that it is not root.
RUN mkdir /data && chown 1000:1000 /data
USER 1000:1000
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node runs as PID 1 and handles SIGTERM itself: requests in flight finish, the database closes.
ENTRYPOINT ["node", "dist/server/main.js"]
CMD ["serve"]
