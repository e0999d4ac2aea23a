// XOR vs sum mod 2^128 over the per-row digests of the control lake: empty, every row once,
// every row twice. The seed's point: x ^ x = 0, so XOR cannot tell a perfect double load from an
// empty table; the sum can, and partition checksums add up to the table's.
import { openDuck, sqlString } from '../engine/duck';
import { openTarget, registerTargetView } from '../reconcile/sides';
import { addMod128, fromHex128, mulMod128, toHex128 } from '../reconcile/checksum';
import { reconcile } from '../reconcile/reconcile';
import { describeDigest } from '../../shared/digest';
import { combine, describeColumns, digestRowsSql } from './digest';
import { lake } from './lakes';
import { fmt, type Experiment } from './types';

export const checksumAlgebra: Experiment = {
  name: 'checksum_algebra',
  async run(ctx) {
    const l = await lake(ctx, 'control');
    const duck = await openDuck();
    try {
      const t = await openTarget(l.tablePath);
      await registerTargetView(duck.conn, t, 'lk_tgt', undefined, false);
      // The columns reconcile digests: every compared column but the float the contract rules on.
      const cols = (await describeColumns(duck.conn, 'lk_tgt')).filter((c) => c.name !== 'amount_float').sort((a, b) => a.name.localeCompare(b.name));
      const rows = (from: string) => digestRowsSql(from, cols, true, ['dt']);
      const empty = await combine(duck.conn, rows('SELECT * FROM lk_tgt WHERE false'));
      const once = await combine(duck.conn, rows('SELECT * FROM lk_tgt'));
      const twice = await combine(duck.conn, rows('SELECT * FROM lk_tgt UNION ALL SELECT * FROM lk_tgt'));
      // Composability: the partitions' sums add up to the table's.
      const parts = await duck.conn.runAndReadAll(`SELECT DISTINCT CAST(dt AS VARCHAR) AS dt FROM lk_tgt ORDER BY dt`);
      let partSum = 0n;
      const dts = parts.getRowObjectsJS().map((x) => String(x.dt));
      for (const dt of dts) {
        const p = await combine(duck.conn, `SELECT * FROM (${rows('SELECT * FROM lk_tgt')}) WHERE CAST(dt AS VARCHAR) = ${sqlString(dt)}`);
        partSum = addMod128(partSum, fromHex128(p.sum));
      }
      // The digest above is md5-canonical-v1, so reconcile is asked for that digest: under its
      // default (DuckDB hash()) the checksum is another number by design (shared/digest.ts).
      const r = await reconcile({ source: l.sourceParquet, target: { root: l.tablePath }, contract: l.contractPath, level: 'checksum', digest: 'md5' });
      const twiceIsDouble = toHex128(mulMod128(fromHex128(once.sum), 2n)) === twice.sum;
      const printed = [
        'XOR combiner',
        `  empty table              ${empty.xor}`,
        `  every row once           ${once.xor}`,
        `  every row exactly twice  ${twice.xor}`,
        twice.xor === empty.xor ? '  -> a perfect double load is INVISIBLE to XOR' : '  -> XOR tells a double load from an empty table',
        '',
        'sum mod 2^128 (lakerec)',
        `  empty table              ${empty.sum}`,
        `  every row once           ${once.sum}`,
        `  every row exactly twice  ${twice.sum}`,
        twiceIsDouble ? '  -> twice is 2 x once mod 2^128: a double load changes the checksum' : '  -> twice is NOT 2 x once',
      ].join('\n');
      return {
        name: this.name,
        title: 'Checksum algebra: XOR vs sum mod 2^128',
        question: 'Can an order-independent combiner of per-row digests tell a double load from an empty table?',
        method: `The control lake's ${fmt(once.rows)} target rows, each digested with the product's md5 canonical row digest (main/reconcile/canonical.ts rowDigestHalves over the ${cols.length} compared columns, the float amount_float left out as the contract rules), combined once by XOR and once by the product's sum mod 2^128 (main/reconcile/checksum.ts); then reconcile at checksum level with \`--digest md5\` (digest ${r.digest}: ${describeDigest(r.digest)}), not its default DuckDB hash() digest, whose checksum is another number.`,
        lakes: { rows: ctx.rows, seed: ctx.seed },
        figures: {
          rows: once.rows,
          columns: cols.length,
          xor_empty: empty.xor,
          xor_once: once.xor,
          xor_twice: twice.xor,
          xor_twice_equals_empty: twice.xor === empty.xor,
          sum_empty: empty.sum,
          sum_once: once.sum,
          sum_twice: twice.sum,
          sum_twice_equals_empty: twice.sum === empty.sum,
          sum_twice_is_2x_once: twiceIsDouble,
          partitions: dts.length,
          partition_sums_add_up: toHex128(partSum) === once.sum,
          reconcile_digest: r.digest,
          reconcile_target_checksum: r.target.checksum,
          same_as_reconcile: r.target.checksum === once.sum,
        },
        printed,
        tables: [],
        findings: [
          `XOR of ${fmt(twice.rows)} digests (every row twice) is ${twice.xor === empty.xor ? 'identical to' : 'different from'} the XOR of no rows: ${twice.xor === empty.xor ? 'a double load is invisible to it' : 'it sees the double load'}.`,
          `The sum mod 2^128 of the same digests is ${twice.sum === empty.sum ? 'also blind' : 'distinct for all three tables'}; twice ${twiceIsDouble ? 'is exactly' : 'is not'} 2 x once.`,
          `The ${dts.length} partition sums ${toHex128(partSum) === once.sum ? 'add up to' : 'do NOT add up to'} the table sum, and the table sum ${r.target.checksum === once.sum ? `is the target checksum reconcile itself reports with --digest md5 (${r.digest})` : `differs from what reconcile reports (${r.target.checksum})`}.`,
        ],
        contradicted: [],
      };
    } finally {
      duck.close();
    }
  },
};
