// Builds the dashboard into frontend/dist/ (index.html served at /, assets under /static/),
// and configures Vitest for the client logic in src/**/*.test.ts and graphiql/**/*.test.ts.
// GraphiQL has its own config (graphiql/vite.config.ts) and is built after this one into dist/graphiql/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // The server mounts frontend/dist at /static and answers / with dist/index.html.
  base: '/static/',
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
  },
  test: {
    include: ['src/**/*.test.ts', 'graphiql/**/*.test.ts'],
    environment: 'node',
    // A bound for a hang, not a measurement: the first DAG layout loads elkjs's bundle, which on a
    // loaded machine takes longer than vitest's default 5 s.
    testTimeout: 60_000,
  },
});
