// The store settings of one invocation: the environment the remote clients read (credentials,
// endpoints, proxies, CA bundle, the cache cap, the read limits) and whether remote locations are
// read anonymously. The CLI runs each command inside withStoreSettings(io.env, --anonymous), so the
// engine's 47 ways into a table (openTable) read the CLI's injected environment, not
// process.env: a test gives a command its own environment and nothing leaks between tests.
// Outside such a run (the window's engine process, a bench) the process environment is the
// environment, as a user's shell gives it.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface StoreSettings {
  env: NodeJS.ProcessEnv;
  /** Unsigned / anonymous requests for every remote location of the run (`--anonymous`). */
  anonymous: boolean;
}

const current = new AsyncLocalStorage<StoreSettings>();

/** Runs `fn` with these settings for every table it opens. */
export function withStoreSettings<T>(settings: StoreSettings, fn: () => T): T {
  return current.run(settings, fn);
}

/** The settings in force: the run's, else the process's environment and signed requests. */
export function storeSettings(): StoreSettings {
  return current.getStore() ?? { env: process.env, anonymous: false };
}

/** The environment the stores read: an explicit one, else the run's. */
export function storeEnv(explicit?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return explicit ?? storeSettings().env;
}
