# One image for both production processes; docker-compose.yml picks the command.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
# Workers load this bundle instead of bundling the workflow sources at every start.
RUN node scripts/build-workflow-bundle.ts
USER node
# 8444: the platform interface, for the private network only (INTERNAL_PORT).
EXPOSE 8443 8080 8444 9464 9465
CMD ["node", "scripts/api.ts"]
