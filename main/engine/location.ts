// A table named on a command line or in the window: a remote location is kept as the user wrote it
// (after the one parser's checks), a local path is resolved against the working folder. Every
// command that takes a table goes through this, so `s3://…` is never resolved into a local path.
import { resolve } from 'node:path';
import { displayLocation, looksRemote, parseLocation } from '../../shared/location';

export function tableArg(cwd: string, raw: string): string {
  // A URL (s3://, abfss://, gs://, and file:// for this machine's files) is parsed, never taken for a relative path.
  if (looksRemote(raw) || /^file:/i.test(raw)) return displayLocation(parseLocation(raw));
  return resolve(cwd, raw);
}

export { looksRemote };
