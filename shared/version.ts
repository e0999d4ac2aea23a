// The one version of lakerec: package.json's, inlined by the build (Vite reads the JSON), so the
// CLI, the engine's records, the writer's engineInfo and the window all say the same.
import { version } from '../package.json';

export const LAKEREC_VERSION: string = version;
