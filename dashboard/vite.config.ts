import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The operator dashboard: built into dist/dashboard, served by the api under /operator. */
export default defineConfig({
  root: import.meta.dirname,
  base: '/operator/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: path.resolve(import.meta.dirname, '../dist/dashboard'),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
  },
});
