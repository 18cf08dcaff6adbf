// Builds portal/src into portal/dist (served by api/portal-static.ts). esbuild compiles the JSX for Preact
// directly, so no framework plugin is needed.
import { defineConfig } from 'vite';

const root = new URL('.', import.meta.url).pathname;

export default defineConfig({
  root,
  base: '/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The map and chart libraries are split out so the login screen loads only the app shell.
    chunkSizeWarningLimit: 300,
  },
  server: {
    // `npx vite portal` during development: the API of `npm start` answers behind the dev server.
    proxy: { '/api': 'http://127.0.0.1:8080', '/device-records': 'http://127.0.0.1:8080' },
  },
});
