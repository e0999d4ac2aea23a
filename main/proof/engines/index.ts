// The engines a proof can pick. Test doubles are listed only when asked for.
import { LakerecError } from '../../../shared/errors';
import { arrowEngine } from './arrow';
import { duckdbEngine } from './duckdb';
import { externalEngines } from './external';
import { lossyEngines } from './lossy';
import { polarsEngine, polarsLossyEngines } from './polars';
import type { Engine } from './types';

export type { Engine, EngineRead, EngineWrite } from './types';

export const ENGINES: readonly Engine[] = [duckdbEngine, arrowEngine, polarsEngine];

/** The in-process engines and the user's own (external ones, offered only where discovered). */
export function allEngines(): Engine[] {
  return [...ENGINES, ...externalEngines];
}

/** The engines offered to users (and, with `testDoubles`, the lossy test doubles too). */
export function listEngines(opts: { testDoubles?: boolean } = {}): Engine[] {
  return opts.testDoubles ? [...allEngines(), ...lossyEngines, ...polarsLossyEngines] : allEngines();
}

export function engineByName(name: string, opts: { testDoubles?: boolean; requireAvailable?: boolean } = {}): Engine {
  const e = listEngines(opts).find((x) => x.name === name);
  if (!e) {
    throw new LakerecError('usage', `unknown engine "${name}"; the engines are ${allEngines().map((x) => x.name).join(', ')}`);
  }
  if (opts.requireAvailable) {
    const a = e.availability?.() ?? { available: true };
    if (!a.available) throw new LakerecError('usage', a.reason, { engine: name });
  }
  return e;
}

/** The engines offered to users that can run here (polars only where its native module loads). */
export function availableEngines(): Engine[] {
  return allEngines().filter((e) => e.availability?.().available ?? true);
}

/** What the window shows to pick from: name, one line, and whether it runs here (serialisable). */
export function engineChoices(opts: { testDoubles?: boolean } = {}): { name: string; description: string; available: boolean; reason: string | null }[] {
  return listEngines(opts).map((e) => {
    const a = e.availability?.() ?? { available: true as const };
    return { name: e.name, description: e.description, available: a.available, reason: a.available ? null : a.reason };
  });
}
