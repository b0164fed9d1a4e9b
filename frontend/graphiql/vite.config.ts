// Builds GraphiQL into frontend/dist/graphiql/ only; frontend/dist/ itself is
// left for the dashboard app. The server's HTML (server/graphiql.py) loads
// graphiql.js and graphiql.css by these fixed names.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  // Relative base: chunks, workers and fonts are found next to graphiql.js via
  // import.meta.url, so the server may mount dist/ under any prefix.
  base: './',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('../dist/graphiql', import.meta.url)),
    emptyOutDir: true,
    cssCodeSplit: false,
    chunkSizeWarningLimit: 8192,
    rolldownOptions: {
      // React libraries mark modules "use client"/"use no memo" for server
      // components and the React compiler; both are meaningless in one
      // browser bundle, so that warning is only noise.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      input: fileURLToPath(new URL('main.tsx', import.meta.url)),
      output: {
        entryFileNames: 'graphiql.js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: (asset) =>
          asset.names.some((name) => name.endsWith('.css')) ? 'graphiql.css' : 'assets/[name]-[hash][extname]',
      },
    },
  },
  worker: { format: 'es' },
});
