// The canonical text is a written contract (docs/adr/0003): pin it byte for byte.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuck, type Duck } from '../engine/duck';
import { canonicalRow, typesComparable } from './canonical';

let duck: Duck;
beforeAll(async () => { duck = await openDuck({ threads: 1 }); });
afterAll(() => duck?.close());

async function text(select: string, cols: { name: string; type: string }[], naiveIsUtc = false): Promise<string[]> {
  const r = await duck.conn.runAndReadAll(`SELECT ${canonicalRow(cols, naiveIsUtc)} AS t FROM (${select})`);
  return r.getRowObjectsJS().map((x) => String(x.t));
}

describe('canonical text (md5-canonical-v1)', () => {
  it('writes each type as ADR 0003 says', async () => {
    const cols = [
      { name: 'a', type: 'DECIMAL(12,2)' }, { name: 'b', type: 'BOOLEAN' }, { name: 'd', type: 'DATE' }, { name: 'i', type: 'INTEGER' },
      { name: 's', type: 'VARCHAR' }, { name: 't', type: 'TIMESTAMP WITH TIME ZONE' }, { name: 'x', type: 'BLOB' }, { name: 'l', type: 'INTEGER[]' },
    ];
    const rows = await text(`SELECT 12.3::DECIMAL(12,2) AS a, true AS b, DATE '1969-12-31' AS d, -7 AS i, 'a|b' AS s,
      TIMESTAMPTZ '1970-01-01 00:00:01.5+00' AS t, '\\xAB'::BLOB AS x, [1, NULL]::INTEGER[] AS l
      UNION ALL SELECT NULL, NULL, NULL, NULL, '', NULL, NULL, NULL
      UNION ALL SELECT NULL, false, NULL, NULL, NULL, NULL, NULL, []::INTEGER[]`, cols);
    expect(rows).toEqual([
      'V12.30|Vt|V1969-12-31|V-7|V3:a|bV1500000|VAB|V8:[1,null]',
      'N|N|N|N|V0:N|N|N|',
      'N|Vf|N|N|N|N|N|V2:[]',
    ]);
  });

  it('counts string length in UTF-8 bytes and does not normalise', async () => {
    const rows = await text(`SELECT 'é' AS s UNION ALL SELECT 'e' || chr(769)`, [{ name: 's', type: 'VARCHAR' }]);
    expect(rows).toEqual(['V2:é', 'V3:e\u0301']);
  });

  it('compares integer widths, not decimal scales, not naive with zoned time unless told', () => {
    expect(typesComparable('INTEGER', 'BIGINT', false)).toBe(true);
    expect(typesComparable('DECIMAL(18,2)', 'DECIMAL(38,2)', false)).toBe(true);
    expect(typesComparable('DECIMAL(18,2)', 'DECIMAL(18,3)', false)).toBe(false);
    expect(typesComparable('TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', false)).toBe(false);
    expect(typesComparable('TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', true)).toBe(true);
    expect(typesComparable('VARCHAR', 'DATE', true)).toBe(false);
  });
});
