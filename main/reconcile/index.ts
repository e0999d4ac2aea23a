// The reconcile engine's public surface (for the CLI, the window's service, matrix and bench).
export { reconcile, type ReconcileOptions } from './reconcile';
export { loadContract, parseContract, contractSummary, CONTRACT_SCHEMA, type Contract } from './contract';
export {
  renderTerminal, renderMarkdown, reconcileMarkdownSections, renderHtmlReport, renderReconcileHtml,
  reconcileHtmlSections, partitionChartSvg, renderJson, esc, type HtmlSection, type MarkdownSection,
} from './report';
export { MODES } from './findings';
export { runMatrix, matrixMarkdown, writeMatrix, type DetectionMatrix, type MatrixLake } from './matrix';
export type { DigestMode } from './canonical';
