// The committed standalone validator is the schema's: regenerated here and compared byte for byte,
// and it answers like Ajv compiling the schema at run time, errors included.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { CONTRACT_SCHEMA, contractSchemaErrors } from './contract';
import { CONTRACT_AJV_OPTIONS, contractValidatorSource } from './contract-validator-source';

const file = fileURLToPath(new URL('./contract-validator.ts', import.meta.url));

describe('the standalone contract validator', () => {
  it('is the generated code of the current CONTRACT_SCHEMA', () => {
    const fresh = contractValidatorSource();
    if (process.env.LAKEREC_UPDATE_VALIDATOR) writeFileSync(file, fresh);
    expect(readFileSync(file, 'utf8')).toBe(fresh);
  });

  it('accepts and refuses what Ajv compiling the schema does, with the same errors', () => {
    const live = new Ajv(CONTRACT_AJV_OPTIONS).compile(CONTRACT_SCHEMA);
    const cases: unknown[] = [
      { version: 1, keys: ['id'] },
      { version: 1, keys: ['id'], partitioning: { column: 'dt', expression: "date(ts AT TIME ZONE 'UTC')" }, columns: { x: { float: { tolerance: 1e-9 } } } },
      { version: 2, keys: [] },
      { version: 1, keys: [''], surprise: true },
      { version: 1, keys: ['id'], partitioning: { column: '' }, lateness: { column: 'dt' } },
      { version: 1, keys: ['\u{1F600}'], tags: { id: { sensitivity: 'secret' } } },
      'not an object',
    ];
    for (const c of cases) {
      const ok = live(c);
      const errors = contractSchemaErrors(c);
      expect({ c, ok: errors.length === 0, errors }).toEqual({ c, ok, errors: ok ? [] : live.errors });
    }
  });
});
