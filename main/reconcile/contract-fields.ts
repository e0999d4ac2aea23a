// The contract's trust fields, kept apart from the rest of the contract: `relationships:` (a
// column of this table refers to a key of another Delta table or Parquet file) and `laws:` (which
// measures must be conserved from source to target per day). contract.ts merges the schema
// fragments below into its JSON schema, so errors carry their line like every other field.

export interface Relationship {
  column: string;
  /** Another Delta table (a folder with _delta_log) or a Parquet file or folder; relative to the contract's folder. */
  references: { path: string; column: string };
  cardinality: 'many_to_one' | 'one_to_one';
}

export interface LawsSpec {
  /** The date or partition column the totals are compared per; default the contract's partition column. */
  day: string | null;
  /** Additive measures to conserve; null: proposed from the schema (numeric, non-key columns). */
  measures: string[] | null;
  /** Float sums may part by tolerance x the day's sum of magnitudes (default 1e-9). */
  tolerance: number | null;
}

const identifier = { type: 'string', minLength: 1 } as const;

export const TRUST_CONTRACT_PROPERTIES = {
  relationships: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['column', 'references'],
      properties: {
        column: identifier,
        references: {
          type: 'object', additionalProperties: false, required: ['path', 'column'],
          properties: { path: { type: 'string', minLength: 1 }, column: identifier },
        },
        cardinality: { enum: ['many_to_one', 'one_to_one'] },
      },
    },
  },
  laws: {
    anyOf: [
      { type: 'null' },
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          day: identifier,
          measures: { type: 'array', items: identifier, uniqueItems: true },
          tolerance: { type: 'number', minimum: 0 },
        },
      },
    ],
  },
} as const;

interface RawTrustFields {
  relationships?: { column: string; references: { path: string; column: string }; cardinality?: 'many_to_one' | 'one_to_one' }[];
  laws?: { day?: string; measures?: string[]; tolerance?: number } | null;
}

/** The trust fields of an already schema-checked contract value. */
export function parseTrustFields(value: unknown): { relationships: Relationship[]; laws: LawsSpec | null } {
  const raw = value as RawTrustFields;
  return {
    relationships: (raw.relationships ?? []).map((r) => ({ column: r.column, references: { path: r.references.path, column: r.references.column }, cardinality: r.cardinality ?? 'many_to_one' })),
    laws: raw.laws ? { day: raw.laws.day ?? null, measures: raw.laws.measures ?? null, tolerance: raw.laws.tolerance ?? null } : null,
  };
}
