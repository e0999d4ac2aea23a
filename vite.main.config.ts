// Builds every file in main/entries/ to dist/main/<name>.js (Node ESM). Dependencies stay
// external (DuckDB is native), so the output is our code only.
import { defineConfig } from 'vite';
import { readdirSync } from 'node:fs';

const entries = Object.fromEntries(
  readdirSync('main/entries')
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => [f.replace(/\.ts$/, ''), `main/entries/${f}`]),
);

export default defineConfig({
  logLevel: 'warn',
  build: {
    ssr: true,
    outDir: 'dist/main',
    emptyOutDir: true,
    target: 'node20',
    sourcemap: true,
    minify: false,
    rollupOptions: {
      input: entries,
      output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
    },
  },
});
