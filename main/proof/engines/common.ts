// What both engines share: opening the snapshot through our reader and refusing, by name, a
// table feature the engine cannot read; and putting the log's nullability and tags on the Arrow
// fields an engine read.
import * as A from 'apache-arrow';
import type { StructType } from '../../../shared/delta';
import { LakerecError } from '../../../shared/errors';
import { openTable } from '../../delta/open';
import type { Snapshot } from '../../delta/types';
import { arrowMetadataOf } from '../cells';
import type { Engine } from './types';

export async function openSnapshot(engine: Pick<Engine, 'name' | 'readerFeatures'>, root: string): Promise<{ snapshot: Snapshot; featuresChecked: string[] }> {
  const table = await openTable(root);
  const snapshot = await table.snapshot();
  const p = snapshot.protocol;
  if (p.minReaderVersion > 3) {
    throw new LakerecError('unsupported_feature', `the ${engine.name} engine cannot read reader protocol version ${p.minReaderVersion}`, { feature: `minReaderVersion=${p.minReaderVersion}` });
  }
  const features = p.minReaderVersion === 3 ? (p.readerFeatures ?? []) : [];
  const missing = features.filter((f) => !engine.readerFeatures.has(f));
  if (missing.length) {
    throw new LakerecError('unsupported_feature', `the ${engine.name} engine does not support the table feature(s) ${missing.join(', ')}`, { feature: missing.join(',') });
  }
  return { snapshot, featuresChecked: features };
}

/** The engine's Arrow columns, named and ordered as the Delta schema, with its nullability and tags. */
export function withDeltaFields(schema: StructType, types: Map<string, A.DataType>): A.Schema {
  return new A.Schema(schema.fields.map((f) => {
    const t = types.get(f.name);
    if (!t) throw new LakerecError('data_file_missing', `the data files have no column "${f.name}" of the table schema`);
    return new A.Field(f.name, t, f.nullable, arrowMetadataOf(f.metadata ?? {}));
  }));
}
