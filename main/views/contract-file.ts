// Where a table's contract lives: a contract.yaml beside the table, or beside its lake folder
// (`lake/table` + `lake/contract.yaml`). The window's default contract and compare both look here.
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function contractFileFor(root: string): string | null {
  for (const p of [join(root, 'contract.yaml'), join(root, 'contract.yml'), join(dirname(root), 'contract.yaml'), join(dirname(root), 'contract.yml')]) {
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // not there
    }
  }
  return null;
}
