// The e2e runs the built app: build it when the build is missing or older than the sources
// (`npm test` has just built, so this is usually a quick check).
import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../main/testing/build-if-stale';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');

export default function setup(): void {
  buildIfStale({
    root,
    outputs: ['dist/main/web.js', 'dist/main/electron.js', 'dist/preload/index.cjs', 'dist/renderer/index.html'],
    sources: ['main', 'preload', 'renderer', 'shared'],
    sourceFile: /\.(ts|tsx|css|html)$/,
    script: 'build',
    banner: 'e2e: building the app first (npm run build)\n',
  });
}
