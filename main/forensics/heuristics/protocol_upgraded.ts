// protocol_upgraded: the protocol rose; names exactly what changed (reader version, writer version,
// features added) and who is locked out: older readers only when the reader side rose.
import type { Heuristic } from './types';

export const protocolUpgraded: Heuristic = {
  names: ['protocol_upgraded'],
  start({ history: h }) {
    return {
      end() {
        const hits = [];
        for (const st of h.states) {
          if (!st.protocolChanged || st.index === 0) continue;
          const prev = h.states[st.index - 1].protocol;
          const p = st.protocol;
          if (!prev || !p) continue;
          const had = new Set([...(prev.readerFeatures ?? []), ...(prev.writerFeatures ?? [])]);
          const added = [...new Set([...(p.readerFeatures ?? []), ...(p.writerFeatures ?? [])])].filter((f) => !had.has(f));
          const readerAdded = (p.readerFeatures ?? []).filter((f) => !(prev.readerFeatures ?? []).includes(f));
          const parts: string[] = [];
          if (p.minReaderVersion !== prev.minReaderVersion) parts.push(`reader version ${prev.minReaderVersion} -> ${p.minReaderVersion}`);
          if (p.minWriterVersion !== prev.minWriterVersion) parts.push(`writer version ${prev.minWriterVersion} -> ${p.minWriterVersion}`);
          if (added.length) parts.push(`features added: ${added.join(', ')}`);
          const readerRose = p.minReaderVersion > prev.minReaderVersion || readerAdded.length > 0;
          const writerRose = p.minWriterVersion > prev.minWriterVersion || added.length > 0;
          const effect = readerRose
            ? 'older readers can no longer read this table'
            : writerRose ? 'older writers can no longer write this table, readers are unaffected' : 'no reader or writer is locked out';
          hits.push({
            name: 'protocol_upgraded' as const, version: st.version, severity: 'info' as const,
            message: `${parts.join(', ') || 'protocol rewritten'}; ${effect}`,
            evidence: {
              readerBefore: prev.minReaderVersion, readerAfter: p.minReaderVersion, writerBefore: prev.minWriterVersion, writerAfter: p.minWriterVersion,
              featuresAdded: added, readersLockedOut: readerRose,
            },
          });
        }
        return hits;
      },
    };
  },
};
