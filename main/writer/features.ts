// The table features the writer needs and honours (PROTOCOL.md, "Table Features"): the protocol a
// schema and configuration need, and the refusal of a table the writer could not keep to its
// promises (column mapping, other features, invariants, CHECK constraints).
import type { DataType, Metadata, Protocol, StructType } from '../../shared/delta';
import { misuse } from './options';

/** Table features the writer honours (a table needing any other is refused). */
const SUPPORTED_FEATURES = new Set(['timestampNtz', 'deletionVectors']);

function usesType(t: DataType, name: string): boolean {
  if (typeof t === 'string') return t === name;
  if (t.type === 'array') return usesType(t.elementType, name);
  if (t.type === 'map') return usesType(t.keyType, name) || usesType(t.valueType, name);
  return t.fields.some((f) => usesType(f.type, name));
}

/**
 * The protocol a table needs, given the current one: (1, 2) by default; table features (3, 7) once
 * a timestamp_ntz column exists (timestampNtz) or deletion vectors are enabled
 * (`delta.enableDeletionVectors`: deletionVectors). PROTOCOL.md, "Table Features".
 */
export function protocolFor(schema: StructType, current?: Protocol, configuration?: Record<string, string>): Protocol {
  const need: string[] = [];
  if (schema.fields.some((f) => usesType(f.type, 'timestamp_ntz'))) need.push('timestampNtz');
  if (configuration?.['delta.enableDeletionVectors'] === 'true') need.push('deletionVectors');
  const missing = need.filter((f) => !(current?.readerFeatures ?? []).includes(f));
  if (missing.length === 0) return current ?? { minReaderVersion: 1, minWriterVersion: 2 };
  const rf = new Set([...(current?.readerFeatures ?? []), ...need]);
  const wf = new Set([...(current?.writerFeatures ?? []), ...need]);
  return { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: [...rf].sort(), writerFeatures: [...wf].sort() };
}

export function sameProtocol(a: Protocol, b: Protocol): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Column invariants and CHECK constraints, which the writer does not evaluate: a table with them is refused. */
export function refuseConstraints(schema: StructType, configuration: Metadata['configuration'], suffix: string): void {
  const invariants = schema.fields.filter((f) => f.metadata && 'delta.invariants' in f.metadata).map((f) => f.name);
  const checks = Object.keys(configuration ?? {}).filter((k) => k.startsWith('delta.constraints.'));
  if (invariants.length > 0 || checks.length > 0) {
    throw misuse(`the writer does not evaluate ${invariants.length > 0 ? `column invariants (${invariants.join(', ')})` : `CHECK constraints (${checks.join(', ')})`}${suffix}`);
  }
}

/** An existing table's protocol and column mapping, refused unless the writer honours all of it. */
export function refuseUnsupportedTable(p: Protocol, columnMapping: string): void {
  const unsupported = [...(p.readerFeatures ?? []), ...(p.writerFeatures ?? [])].filter((f) => !SUPPORTED_FEATURES.has(f));
  const legacyBeyond = (p.minWriterVersion > 2 && p.minWriterVersion < 7) || (p.minReaderVersion === 2);
  if (unsupported.length > 0 || legacyBeyond || columnMapping !== 'none') {
    const what = unsupported.length > 0 ? `table features ${[...new Set(unsupported)].join(', ')}` : columnMapping !== 'none' ? `column mapping (${columnMapping})` : `protocol ${p.minReaderVersion}/${p.minWriterVersion}`;
    throw misuse(`the writer cannot honour ${what}; it writes protocol 1/2 tables (and 3/7 with timestampNtz and deletionVectors) only, so this table is not written`);
  }
}
