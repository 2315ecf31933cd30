// Browser build of the renderer for `agentjet ui`: the same React app as the Electron window,
// emitted as static files into out/web (relative base, Monaco's workers as their own files, no CDN).
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: `${root}src/renderer`,
  base: './',
  plugins: [react()],
  // Monaco's `?worker` imports become separate ES-module files served from 'self' (CSP worker-src).
  worker: { format: 'es' },
  build: {
    outDir: `${root}out/web`,
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 10_000,
  },
  logLevel: 'warn',
});
