// Golden files for the fingerprint SQL. The Spark and Snowflake SQL is written to the spec and
// has not been run against those engines yet; these files pin the text so that any change to it
// is a reviewed change. Regenerate with LAKEREC_UPDATE_GOLDEN=1.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FINGERPRINT_DIALECTS, fingerprintSql } from '../../shared/fingerprint';
import { DECLARED_SCHEMA } from './generate';

const here = dirname(fileURLToPath(import.meta.url));

describe('fingerprint SQL golden files', () => {
  for (const dialect of FINGERPRINT_DIALECTS) {
    it(dialect, () => {
      const sql = fingerprintSql(DECLARED_SCHEMA, dialect);
      const file = join(here, 'golden', `${dialect}.sql`);
      if (process.env.LAKEREC_UPDATE_GOLDEN === '1') writeFileSync(file, sql);
      expect(sql).toBe(readFileSync(file, 'utf8'));
    });
  }

  it('every dialect covers every column with the same figures', () => {
    for (const dialect of FINGERPRINT_DIALECTS) {
      const sql = fingerprintSql(DECLARED_SCHEMA, dialect);
      DECLARED_SCHEMA.fields.forEach((_, i) => expect(sql).toContain(`AS c${i}_nulls`));
      expect(sql.match(/AS c\d+_hash/g)?.length).toBe(12);
      expect(sql.match(/AS c\d+_(nan|posinf|neginf|min|max|sum)\b/g)?.length).toBe(12);
    }
  });

  it('quotes identifiers per dialect', () => {
    const s = { type: 'struct' as const, fields: [{ name: 'we"ird`name', type: 'long', nullable: true, metadata: {} }] };
    expect(fingerprintSql(s, 'duckdb', 't')).toContain('"we""ird`name"');
    expect(fingerprintSql(s, 'snowflake', 't')).toContain('"we""ird`name"');
    expect(fingerprintSql(s, 'spark', 't')).toContain('`we"ird``name`');
  });
});
