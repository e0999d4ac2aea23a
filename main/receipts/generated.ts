// Documents rendered by code from a measurement file. verify re-renders each from the committed
// measurement and fails when the committed document differs, so no figure in them can be
// hand-edited (or go stale when the measurement is re-run without re-rendering).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { matrixMarkdown, type DetectionMatrix } from '../reconcile/matrix';
import { experimentsMarkdown, loadExperimentResults } from '../experiments/markdown';

export interface GeneratedDoc {
  file: string;
  /** The command that writes it. */
  by: string;
  /** The document as the committed measurement renders it (null: the measurement is missing). */
  render(root: string): string | null;
}

function json<T>(root: string, rel: string): T | null {
  const p = join(root, rel);
  return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as T) : null;
}

export const GENERATED: GeneratedDoc[] = [
  {
    file: 'docs/detection-matrix.md',
    by: 'npm run matrix',
    render: (root) => {
      const m = json<DetectionMatrix>(root, 'docs/experiments/detection_matrix.json');
      return m ? matrixMarkdown(m) : null;
    },
  },
  {
    file: 'docs/experiments.md',
    by: 'npm run experiments',
    render: (root) => {
      const results = loadExperimentResults(root);
      return results.length ? experimentsMarkdown(results) : null;
    },
  },
];
