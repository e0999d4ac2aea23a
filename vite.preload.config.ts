// A sandboxed preload must be one CommonJS file with only `electron` external.
import { defineConfig } from 'vite';

export default defineConfig({
  logLevel: 'warn',
  build: {
    ssr: true,
    outDir: 'dist/preload',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    rollupOptions: {
      input: { index: 'preload/index.ts' },
      external: ['electron'],
      output: { format: 'cjs', entryFileNames: '[name].cjs' },
    },
  },
  ssr: { noExternal: true },
});
