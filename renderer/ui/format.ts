// Formatting shared by the history screens. Times are shown in UTC: a log's timestamps are
// compared across machines and time zones, and the CLI prints UTC too.
import type { OperationParameters } from '../../shared/forensics';
export function formatUtc(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const d = new Date(ms);
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

export function formatAgo(ms: number, now = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 0) return 'in the future';
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

/** A colour family for an operation name, so a history reads at a glance. */
export function operationKind(op: string | null): 'create' | 'write' | 'delete' | 'merge' | 'maintenance' | 'schema' | 'other' {
  if (!op) return 'other';
  const o = op.toUpperCase();
  if (o.startsWith('CREATE') || o.startsWith('REPLACE TABLE')) return 'create';
  if (o.includes('DELETE') || o.includes('TRUNCATE')) return 'delete';
  if (o.includes('MERGE') || o.includes('UPDATE')) return 'merge';
  if (o.includes('OPTIMIZE') || o.includes('VACUUM') || o.includes('CHECKPOINT') || o.includes('RESTORE')) return 'maintenance';
  if (o.includes('COLUMN') || o.includes('SET TBLPROPERTIES') || o.includes('UPGRADE') || o.includes('CHANGE')) return 'schema';
  if (o.includes('WRITE') || o.includes('STREAMING') || o.includes('APPEND') || o.includes('INSERT')) return 'write';
  return 'other';
}

export function formatParams(p: OperationParameters): string {
  return Object.entries(p)
    .filter(([, v]) => v !== 'null' && v !== '' && v !== '[]')
    .map(([k, v]) => `${k}=${v}`)
    .join('  ');
}

/** Compact figures for axes and badges: 1234 -> 1.2k. Exact values are shown elsewhere. */
export function compact(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (a >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${Math.round(n / 1e3)}k`;
  if (a >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v >= 100 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

export function formatInt(n: number | null): string {
  return n === null ? '?' : n.toLocaleString('en-US');
}
