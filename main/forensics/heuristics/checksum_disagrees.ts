// checksum_disagrees: a version checksum file (NNN.crc, PROTOCOL.md "Version Checksum File") whose
// numFiles, tableSizeBytes, numMetadata or numProtocol differ from the state replayed from the log.
import type { EvidenceValue } from '../../../shared/forensics';
import type { Heuristic } from './types';

export const checksumDisagrees: Heuristic = {
  names: ['checksum_disagrees'],
  start({ history: h }) {
    return {
      end() {
        const hits = [];
        for (const st of h.states) {
          const crc = st.checksum;
          if (!crc || !st.exact) continue;
          const replayed = { numFiles: st.tableFiles, tableSizeBytes: st.tableBytes, numMetadata: st.metadata ? 1 : 0, numProtocol: st.protocol ? 1 : 0 };
          const off: string[] = [];
          const evidence: Record<string, EvidenceValue> = {};
          for (const k of ['numFiles', 'tableSizeBytes', 'numMetadata', 'numProtocol'] as const) {
            const claimed = crc[k];
            if (claimed === undefined) continue;
            evidence[`crc${k[0].toUpperCase()}${k.slice(1)}`] = claimed;
            evidence[k] = replayed[k];
            if (claimed !== replayed[k]) off.push(`${k} ${claimed} in the .crc, ${replayed[k]} replayed`);
          }
          if (!off.length) continue;
          hits.push({
            name: 'checksum_disagrees' as const, version: st.version, severity: 'warn' as const,
            message: `the version checksum file disagrees with the log: ${off.join('; ')} (a commit edited or lost after it was written?)`,
            evidence,
          });
        }
        return hits;
      },
    };
  },
};
