// schema_changed: the metaData's schema (or partition columns) changed at this version.
import { fieldsOf } from '../helpers';
import type { Heuristic } from './types';

export const schemaChanged: Heuristic = {
  names: ['schema_changed'],
  start() {
    return {
      at({ st, prevSt, v, op }) {
        if (!st.metadataChanged) return [];
        const prev = prevSt?.metadata ?? null;
        const a = fieldsOf(prev);
        const b = fieldsOf(st.metadata);
        const added = b.filter((f) => !a.some((x) => x.name === f.name)).map((f) => f.name);
        const dropped = a.filter((f) => !b.some((x) => x.name === f.name)).map((f) => f.name);
        const retyped = b.filter((f) => a.some((x) => x.name === f.name && JSON.stringify(x.type) !== JSON.stringify(f.type)))
          .map((f) => `${f.name}: ${JSON.stringify(a.find((x) => x.name === f.name)?.type)} -> ${JSON.stringify(f.type)}`);
        const nullability = b.filter((f) => a.some((x) => x.name === f.name && x.nullable !== f.nullable)).map((f) => `${f.name}: nullable ${!f.nullable} -> ${f.nullable}`);
        const pcBefore = prev?.partitionColumns ?? [];
        const pcAfter = st.metadata?.partitionColumns ?? [];
        const parts: string[] = [];
        if (added.length) parts.push(`added ${added.join(', ')}`);
        if (dropped.length) parts.push(`dropped ${dropped.join(', ')}`);
        if (retyped.length) parts.push(`retyped ${retyped.join('; ')}`);
        if (nullability.length) parts.push(nullability.join('; '));
        if (JSON.stringify(pcBefore) !== JSON.stringify(pcAfter)) parts.push(`partition columns ${JSON.stringify(pcBefore)} -> ${JSON.stringify(pcAfter)}`);
        return [{
          name: 'schema_changed', version: v, severity: dropped.length || retyped.length ? 'warn' : 'info',
          message: `${op} changed the schema: ${parts.join('; ') || 'schema text changed'}`,
          evidence: { added, dropped, retyped, nullability, partitionColumnsBefore: pcBefore, partitionColumnsAfter: pcAfter },
        }];
      },
    };
  },
};
