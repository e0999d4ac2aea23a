// One hash of a folder's tree (paths, modes and file bytes): a test's proof that a table it ran a
// command on is byte-identical afterwards.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function treeHash(root: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    let names: string[];
    try { names = readdirSync(d).sort(); } catch { return; }
    for (const n of names) {
      const p = join(d, n);
      const st = lstatSync(p);
      h.update(p + '\0' + String(st.mode) + '\0');
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) h.update(readFileSync(p));
    }
  };
  walk(root);
  return h.digest('hex');
}
