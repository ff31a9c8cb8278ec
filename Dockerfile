# Image for running ocm-ts on real clusters: `ocm-ts agent ...` on each managed cluster and
# `ocm-ts hub --kubeconfig ...` (or in-cluster config) on the hub.
FROM node:20-bookworm-slim AS build
WORKDIR /src
# better-sqlite3 builds a native addon when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY manifests ./manifests
# The build's steps after tsc (the dashboard page, the agent bundle), run by npm ci's prepare.
COPY scripts ./scripts
RUN npm ci && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/manifests ./manifests
# The agent manifest: the hub's cluster importer installs it on imported clusters.
COPY deploy/agent ./deploy/agent
COPY package.json ./
USER 65532:65532
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
