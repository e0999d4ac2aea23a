import { it, expect } from 'vitest';
import { openDuck, sqlIdent, sqlString } from './duck';

it('opens DuckDB with parquet built in and quotes safely', async () => {
  const duck = await openDuck();
  try {
    const r = await duck.conn.runAndReadAll(`select ${sqlString("o'k")} as ${sqlIdent('we"ird')}, 42::hugeint as n`);
    expect(r.getRowObjects()[0]).toEqual({ 'we"ird': "o'k", n: 42n });
  } finally {
    duck.close();
  }
});
