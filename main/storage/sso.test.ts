// An AWS SSO profile (sso_session) in a temp HOME's ~/.aws/config: the chain picks the profile the
// run's AWS_PROFILE names, and a missing or expired SSO token is one line, exit 3, no trace, and
// never the token. (The SDK finds its SSO token cache under the process's home folder: it takes no
// path for it, so the process's HOME is set too.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli/main';
import { withProcessEnv } from '../testing/object-servers';
import { s3Config } from './s3';

let home: string;
const TOKEN = 'aoa-secret-token-never-shown';

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'lakerec-sso-home-'));
  mkdirSync(join(home, '.aws'), { recursive: true });
  writeFileSync(join(home, '.aws', 'config'), [
    '[profile lake-sso]',
    'sso_session = corp',
    'sso_account_id = 111122223333',
    'sso_role_name = ReadOnly',
    'region = eu-west-1',
    '',
    '[sso-session corp]',
    'sso_start_url = https://corp.awsapps.example/start',
    'sso_region = eu-west-1',
    'sso_registration_scopes = sso:account:access',
    '',
  ].join('\n'));
});
afterAll(() => { rmSync(home, { recursive: true, force: true }); });

async function history(env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  // Nothing listens on port 1: no request may be needed to refuse (the credentials fail first).
  const full = { HOME: home, AWS_PROFILE: 'lake-sso', AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1', AWS_EC2_METADATA_DISABLED: 'true', ...env };
  const code = await withProcessEnv({ HOME: home }, () => runCli(['history', 's3://lake/t'], { out: (x) => out.push(x), err: (x) => err.push(x), cwd: home, env: full }));
  return { code, out: out.join(''), err: err.join('') };
}

describe('an SSO profile', () => {
  it('is the source the chain names (the profile from the run\'s AWS_PROFILE)', () => {
    expect(s3Config({ AWS_PROFILE: 'lake-sso', HOME: home }, false).credentialSource).toBe('the profile "lake-sso" (AWS_PROFILE)');
  });

  it('without a token (never logged in): one line, exit 3, what to do', async () => {
    const r = await history({});
    expect(r.code).toBe(3);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^lakerec history: source unreadable: no credentials for s3:\/\/lake\/t: the SSO session of the profile "lake-sso" \(AWS_PROFILE\) has no valid token/);
    expect(r.err).toMatch(/aws sso login/);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('with an expired token: one line, exit 3, and the token never appears', async () => {
    const cache = join(home, '.aws', 'sso', 'cache');
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, `${createHash('sha1').update('corp').digest('hex')}.json`), JSON.stringify({
      startUrl: 'https://corp.awsapps.example/start', region: 'eu-west-1', accessToken: TOKEN, expiresAt: '2020-01-01T00:00:00Z',
    }));
    const r = await history({});
    expect(r.code).toBe(3);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/the SSO session of the profile "lake-sso" \(AWS_PROFILE\) has expired/);
    expect(r.err).not.toContain(TOKEN);
  });
});
