// One experiment's published result: docs/experiments/NAME.json, rendered into a section of
// docs/experiments.md. `figures` are deterministic for the sample lakes' seed: verify re-runs the
// experiment and fails when one changes. `cpuMs` are CPU times, published but never compared
// (a shared machine makes them swing); ratios of them within one run are what the docs quote.

export type Figure = number | string | boolean | null;

export interface ExperimentTable {
  caption: string;
  columns: string[];
  rows: Figure[][];
}

export interface ExperimentResult {
  name: string;
  title: string;
  question: string;
  /** How it was measured, in a sentence or two, naming the product code it ran. */
  method: string;
  /** The sample lakes it ran on. */
  lakes: { rows: number; seed: number };
  figures: Record<string, Figure>;
  /** Printed the way the seed prints it (a terminal block). */
  printed?: string;
  tables: ExperimentTable[];
  /** What the figures say, each sentence built from the figures. */
  findings: string[];
  /** What came out differently from what we (or the seed) expected. */
  contradicted: string[];
  /** CPU milliseconds, volatile: published, never compared by verify. */
  cpuMs?: Record<string, number>;
  /** Figures that only a full run measures (e.g. the 1M-row lake); verify's quick run skips them. */
  fullOnly?: string[];
}

export interface ExperimentContext {
  /** A scratch folder for lakes. */
  dir: string;
  rows: number;
  seed: number;
  /** Full run: include the 1M-row lake. */
  full: boolean;
  log: (line: string) => void;
}

export interface Experiment {
  name: string;
  run(ctx: ExperimentContext): Promise<ExperimentResult>;
}

export const fmt = (n: number): string => n.toLocaleString('en-US');
export const pct = (part: number, whole: number, digits = 1): string => (whole === 0 ? '0' : ((100 * part) / whole).toFixed(digits));
