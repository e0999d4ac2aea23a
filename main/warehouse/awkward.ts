// The awkward values whose canonical text is pinned value by value: the tests run them here (DuckDB
// dialect against the local engine), and `lakerec warehouse check` reads them as a VALUES list on
// a user's warehouse (creating nothing) to compare its text and digests with the local ones.
// `text` is ADR 0003's field for the value, written out by hand (for floats: the exact parts
// m*2^k of the exact-sum rule, 'zero or null', or the special value's name).
import type { TypeFamily } from '../reconcile/canonical';
import type { Dialect } from './dialect';

export interface AwkwardValue {
  name: string;
  /** DuckDB type the local engine gives the column. */
  type: string;
  family: TypeFamily;
  /** The value as a DuckDB expression. */
  duckdb: string;
  /** Its literal in each warehouse dialect (defaults: the DuckDB expression). */
  literal?: Partial<Record<Dialect, string>>;
  text: string;
  naiveIsUtc?: boolean;
  /** A float's value, to check m*2^k against (JavaScript number text). */
  value?: string;
}

const sparkTrinoSnow = (spark: string, snowflake: string, trino: string): Partial<Record<Dialect, string>> => ({ spark, snowflake, trino });

export const AWKWARD_VALUES: readonly AwkwardValue[] = [
  { name: 'integer -7', type: 'BIGINT', family: 'integer', duckdb: 'CAST(-7 AS BIGINT)', text: 'V-7|' },
  { name: 'bigint max', type: 'BIGINT', family: 'integer', duckdb: 'CAST(9223372036854775807 AS BIGINT)', text: 'V9223372036854775807|' },
  { name: 'integer null', type: 'INTEGER', family: 'integer', duckdb: 'CAST(NULL AS INTEGER)', text: 'N|' },
  { name: 'decimal -0.00', type: 'DECIMAL(5,2)', family: 'decimal', duckdb: "CAST('-0.00' AS DECIMAL(5,2))", text: 'V0.00|' },
  { name: 'decimal 12.30 keeps its scale', type: 'DECIMAL(18,2)', family: 'decimal', duckdb: "CAST('12.30' AS DECIMAL(18,2))", text: 'V12.30|' },
  { name: 'decimal -1.05', type: 'DECIMAL(5,2)', family: 'decimal', duckdb: "CAST('-1.05' AS DECIMAL(5,2))", text: 'V-1.05|' },
  { name: 'decimal zero of scale 10', type: 'DECIMAL(38,10)', family: 'decimal', duckdb: "CAST('0' AS DECIMAL(38,10))", text: 'V0.0000000000|' },
  { name: 'date 9999-12-31', type: 'DATE', family: 'date', duckdb: "DATE '9999-12-31'", text: 'V9999-12-31|' },
  { name: 'date 0001-01-01', type: 'DATE', family: 'date', duckdb: "DATE '0001-01-01'", text: 'V0001-01-01|' },
  { name: 'date 1969-12-31', type: 'DATE', family: 'date', duckdb: "DATE '1969-12-31'", text: 'V1969-12-31|' },
  {
    name: 'timestamp one microsecond before 1970', type: 'TIMESTAMP WITH TIME ZONE', family: 'timestamp', duckdb: "TIMESTAMPTZ '1969-12-31 23:59:59.999999+00'", text: 'V-1|',
    literal: sparkTrinoSnow("TIMESTAMP '1969-12-31 23:59:59.999999Z'", "'1969-12-31 23:59:59.999999 +00:00'::TIMESTAMP_TZ", "TIMESTAMP '1969-12-31 23:59:59.999999 UTC'"),
  },
  {
    name: 'timestamp 1900-01-01', type: 'TIMESTAMP WITH TIME ZONE', family: 'timestamp', duckdb: "TIMESTAMPTZ '1900-01-01 00:00:00+00'", text: 'V-2208988800000000|',
    literal: sparkTrinoSnow("TIMESTAMP '1900-01-01 00:00:00Z'", "'1900-01-01 00:00:00 +00:00'::TIMESTAMP_TZ", "TIMESTAMP '1900-01-01 00:00:00.000000 UTC'"),
  },
  {
    name: 'timestamp 9999-12-31 23:59:59.999999', type: 'TIMESTAMP WITH TIME ZONE', family: 'timestamp', duckdb: "TIMESTAMPTZ '9999-12-31 23:59:59.999999+00'", text: 'V253402300799999999|',
    literal: sparkTrinoSnow("TIMESTAMP '9999-12-31 23:59:59.999999Z'", "'9999-12-31 23:59:59.999999 +00:00'::TIMESTAMP_TZ", "TIMESTAMP '9999-12-31 23:59:59.999999 UTC'"),
  },
  {
    name: 'naive timestamp 1960-01-01 12:00 under naive_is_utc', type: 'TIMESTAMP', family: 'timestamp_naive', duckdb: "TIMESTAMP '1960-01-01 12:00:00'", text: 'V-315576000000000|', naiveIsUtc: true,
    literal: sparkTrinoSnow("TIMESTAMP_NTZ '1960-01-01 12:00:00'", "'1960-01-01 12:00:00'::TIMESTAMP_NTZ", "TIMESTAMP '1960-01-01 12:00:00.000000'"),
  },
  { name: 'empty string', type: 'VARCHAR', family: 'string', duckdb: "''", text: 'V0:' },
  { name: 'string null', type: 'VARCHAR', family: 'string', duckdb: 'CAST(NULL AS VARCHAR)', text: 'N|', literal: sparkTrinoSnow('CAST(NULL AS STRING)', 'CAST(NULL AS VARCHAR)', 'CAST(NULL AS VARCHAR)') },
  { name: 'e + combining acute (NFD), not normalised', type: 'VARCHAR', family: 'string', duckdb: "'e\u0301'", text: 'V3:e\u0301' },
  { name: 'precomposed é (NFC)', type: 'VARCHAR', family: 'string', duckdb: "'\u00e9'", text: 'V2:\u00e9' },
  { name: 'a separator inside a string', type: 'VARCHAR', family: 'string', duckdb: "'a|b'", text: 'V3:a|b' },
  { name: 'an emoji (4 bytes)', type: 'VARCHAR', family: 'string', duckdb: "'\u{1F600}'", text: 'V4:\u{1F600}' },
  { name: 'boolean true', type: 'BOOLEAN', family: 'boolean', duckdb: 'TRUE', text: 'Vt|' },
  { name: 'boolean false', type: 'BOOLEAN', family: 'boolean', duckdb: 'FALSE', text: 'Vf|' },
  { name: 'boolean null', type: 'BOOLEAN', family: 'boolean', duckdb: 'CAST(NULL AS BOOLEAN)', text: 'N|' },
  {
    name: 'binary AA 00', type: 'BLOB', family: 'blob', duckdb: "'\\xAA\\x00'::BLOB", text: 'VAA00|',
    literal: sparkTrinoSnow("X'AA00'", "TO_BINARY('AA00', 'HEX')", "X'AA00'"),
  },
  { name: 'negative zero', type: 'DOUBLE', family: 'float', duckdb: "CAST('-0.0' AS DOUBLE)", text: 'zero or null', value: '0', literal: sparkTrinoSnow("CAST('-0.0' AS DOUBLE)", "'-0.0'::FLOAT", 'CAST(-0.0E0 AS DOUBLE)') },
  { name: '1e308', type: 'DOUBLE', family: 'float', duckdb: 'CAST(1e308 AS DOUBLE)', text: '5010420900022432*2^971', value: '1e308', literal: sparkTrinoSnow('CAST(1e308 AS DOUBLE)', "'1e308'::FLOAT", '1e308') },
  { name: 'largest double', type: 'DOUBLE', family: 'float', duckdb: 'CAST(1.7976931348623157e308 AS DOUBLE)', text: '9007199254740991*2^971', value: '1.7976931348623157e308', literal: sparkTrinoSnow('CAST(1.7976931348623157e308 AS DOUBLE)', "'1.7976931348623157e308'::FLOAT", '1.7976931348623157e308') },
  { name: 'smallest subnormal', type: 'DOUBLE', family: 'float', duckdb: "CAST('4.9406564584124654e-324' AS DOUBLE)", text: '1*2^-1074', value: '5e-324', literal: sparkTrinoSnow("CAST('4.9406564584124654e-324' AS DOUBLE)", "'4.9406564584124654e-324'::FLOAT", '4.9406564584124654e-324') },
  { name: 'smallest normal', type: 'DOUBLE', family: 'float', duckdb: 'CAST(2.2250738585072014e-308 AS DOUBLE)', text: '4503599627370496*2^-1074', value: '2.2250738585072014e-308', literal: sparkTrinoSnow('CAST(2.2250738585072014e-308 AS DOUBLE)', "'2.2250738585072014e-308'::FLOAT", '2.2250738585072014e-308') },
  { name: '0.1', type: 'DOUBLE', family: 'float', duckdb: 'CAST(0.1 AS DOUBLE)', text: '7205759403792794*2^-56', value: '0.1', literal: sparkTrinoSnow('CAST(0.1 AS DOUBLE)', "'0.1'::FLOAT", '1e-1') },
  { name: '-1.5', type: 'DOUBLE', family: 'float', duckdb: 'CAST(-1.5 AS DOUBLE)', text: '-6755399441055744*2^-52', value: '-1.5', literal: sparkTrinoSnow('CAST(-1.5 AS DOUBLE)', "'-1.5'::FLOAT", '-15e-1') },
  { name: 'NaN', type: 'DOUBLE', family: 'float', duckdb: "CAST('NaN' AS DOUBLE)", text: 'nan', literal: sparkTrinoSnow("CAST('NaN' AS DOUBLE)", "'NaN'::FLOAT", 'nan()') },
  { name: 'infinity', type: 'DOUBLE', family: 'float', duckdb: "CAST('Infinity' AS DOUBLE)", text: '+inf', literal: sparkTrinoSnow("CAST('Infinity' AS DOUBLE)", "'inf'::FLOAT", 'infinity()') },
  { name: '-infinity', type: 'DOUBLE', family: 'float', duckdb: "CAST('-Infinity' AS DOUBLE)", text: '-inf', literal: sparkTrinoSnow("CAST('-Infinity' AS DOUBLE)", "'-inf'::FLOAT", '-infinity()') },
];

export function awkwardLiteral(v: AwkwardValue, dialect: Dialect): string {
  return v.literal?.[dialect] ?? v.duckdb;
}
