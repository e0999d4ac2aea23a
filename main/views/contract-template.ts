// The starting contract for a table, written from its schema: the one template the window's
// Reconcile screen proposes and `lakerec contract init` writes. It sets naive_is_utc: true, so
// a source's naive timestamps are read as UTC; the keys are a guess the user reviews.
import { basename, dirname } from 'node:path';
import { openTable } from '../delta/open';

const GENERIC = new Set(['table', 'target', 'data', 'delta', 'current']);

/** The name a list shows: the folder's name, with its parent's when the name says nothing ("demo/table"). */
export function tableName(root: string): string {
  const base = basename(root) || root;
  const parent = basename(dirname(root));
  return GENERIC.has(base.toLowerCase()) && parent ? `${parent}/${base}` : base;
}

/** A starting contract written from the table's schema (latest version). */
export async function contractTemplate(root: string): Promise<string> {
  const snap = await (await openTable(root)).snapshot();
  const cols = snap.schema.fields.map((f) => f.name);
  const key = cols.find((c) => /(^|_)id$/i.test(c)) ?? cols[0] ?? 'id';
  const yamlName = (s: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? s : JSON.stringify(s));
  const lines = [
    `# A template written from ${tableName(root)}'s schema: review the keys before trusting a verdict.`,
    'version: 1',
    `name: ${yamlName(tableName(root).replace(/\//g, '_'))}`,
    `keys: [${yamlName(key)}]`,
  ];
  if (snap.partitionColumns.length) lines.push('partitioning:', `  column: ${yamlName(snap.partitionColumns[0])}`);
  lines.push('timestamps: { naive_is_utc: true }', 'ignore: []', 'tags: {}', '');
  return lines.join('\n');
}
