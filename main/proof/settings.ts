// The proof's settings, in `settings.json` of the user's app-data folder (beside runs.duckdb):
//   { "proof": { "mode": "generic" | "off" | "all", "dagsterUrl": "http://host:3000/graphql" } }
// `mode` is the seed's ODS_PROOF: which proofs run when none is named. generic (the default): one
// proof of the generated table with the default pair; off: none; all: every pair of the engines
// available here. A CLI flag (--proofs) overrides the file; the window reads and writes it.
// `dagsterUrl`, when set, is a Dagster instance's GraphQL endpoint the record is posted to.
import { existsSync, readFileSync } from 'node:fs';
import { ensureOutputDir, writeOutput } from '../engine/outputs';
import { join } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { PROOF_MODES, type ProofMode, type ProofSettings } from '../../shared/proof';

export const SETTINGS_FILE = 'settings.json';

export const DEFAULT_PROOF_SETTINGS: ProofSettings = { mode: 'generic', dagsterUrl: null };

export function parseProofMode(v: unknown, where: string): ProofMode {
  if (typeof v === 'string' && (PROOF_MODES as readonly string[]).includes(v)) return v as ProofMode;
  throw new LakerecError('usage', `${where}: the proof mode is ${JSON.stringify(v)}; it must be one of ${PROOF_MODES.join(', ')}`);
}

/** An http(s) URL without credentials in it (credentials never go into a URL lakerec shows). */
export function parseDagsterUrl(v: unknown, where: string): string | null {
  if (v === null || v === undefined || v === '') return null;
  let u: URL;
  try { u = new URL(String(v)); } catch { throw new LakerecError('usage', `${where}: dagsterUrl ${JSON.stringify(v)} is not a URL`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new LakerecError('usage', `${where}: dagsterUrl must be http or https`);
  if (u.username || u.password) throw new LakerecError('usage', `${where}: dagsterUrl must not hold credentials`);
  return u.toString();
}

/** The settings in `dir`, defaults for what is absent; a malformed file is one clear line (exit 2). */
export function readProofSettings(dir: string): ProofSettings {
  const path = join(dir, SETTINGS_FILE);
  if (!existsSync(path)) return { ...DEFAULT_PROOF_SETTINGS };
  let doc: unknown;
  try { doc = JSON.parse(readFileSync(path, 'utf8')); } catch (e) {
    throw new LakerecError('usage', `the settings file ${path} is not JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  const proof = (doc && typeof doc === 'object' ? (doc as Record<string, unknown>).proof : undefined) as Record<string, unknown> | undefined;
  if (proof === undefined) return { ...DEFAULT_PROOF_SETTINGS };
  if (!proof || typeof proof !== 'object' || Array.isArray(proof)) throw new LakerecError('usage', `the settings file ${path}: "proof" must be an object`);
  return {
    mode: proof.mode === undefined ? DEFAULT_PROOF_SETTINGS.mode : parseProofMode(proof.mode, `the settings file ${path}`),
    dagsterUrl: parseDagsterUrl(proof.dagsterUrl, `the settings file ${path}`),
  };
}

/** Writes the proof settings, keeping the file's other keys; atomic (temp file, rename). */
export function writeProofSettings(dir: string, s: ProofSettings): ProofSettings {
  const checked: ProofSettings = { mode: parseProofMode(s.mode, 'the proof settings'), dagsterUrl: parseDagsterUrl(s.dagsterUrl, 'the proof settings') };
  ensureOutputDir(dir, 'the settings folder');
  const path = join(dir, SETTINGS_FILE);
  let doc: Record<string, unknown> = {};
  if (existsSync(path)) {
    try { const d = JSON.parse(readFileSync(path, 'utf8')) as unknown; if (d && typeof d === 'object' && !Array.isArray(d)) doc = d as Record<string, unknown>; } catch { /* replaced */ }
  }
  doc.proof = checked;
  writeOutput(path, JSON.stringify(doc, null, 2) + '\n', { what: 'the proof settings', mode: 0o600 });
  return checked;
}

export { proofsForMode } from '../../shared/proof';
