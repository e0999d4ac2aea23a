// The one location model: every way of naming a table parses to one type, shows one way, and a
// hostile location string is one clear usage error that never repeats a secret it carried.
import { describe, expect, it } from 'vitest';
import { LakerecError } from './errors';
import { displayLocation, looksRemote, objectKey, parseLocation } from './location';

const refused = (s: string): LakerecError => {
  try {
    parseLocation(s);
  } catch (e) {
    expect(e).toBeInstanceOf(LakerecError);
    expect((e as LakerecError).code).toBe('usage');
    return e as LakerecError;
  }
  throw new Error(`parsed: ${s}`);
};

describe('parseLocation', () => {
  it('reads plain paths, Windows paths and file:// URLs as local', () => {
    expect(parseLocation('/data/t')).toEqual({ kind: 'local', path: '/data/t' });
    expect(parseLocation('rel/t')).toEqual({ kind: 'local', path: 'rel/t' });
    expect(parseLocation('C:\\lake\\t')).toEqual({ kind: 'local', path: 'C:\\lake\\t' });
    expect(parseLocation('file:///data/my%20t')).toEqual({ kind: 'local', path: '/data/my t' });
    expect(parseLocation('file://localhost/data/t')).toEqual({ kind: 'local', path: '/data/t' });
    expect(parseLocation('file:/data/t')).toEqual({ kind: 'local', path: '/data/t' });
    // Not scheme://: a folder name, taken as given.
    expect(parseLocation(' odd:name ')).toEqual({ kind: 'local', path: ' odd:name ' });
    expect(parseLocation('s3:/b12/t')).toEqual({ kind: 'local', path: 's3:/b12/t' });
  });

  it('reads s3://, s3a://, gs://, az:// and abfss:// into bucket/container and a clean prefix', () => {
    expect(parseLocation('s3://my-bucket/lake/t/')).toEqual({ kind: 's3', bucket: 'my-bucket', prefix: 'lake/t' });
    expect(parseLocation('s3a://my.bucket')).toEqual({ kind: 's3', bucket: 'my.bucket', prefix: '' });
    expect(parseLocation('gs://b_1/x')).toEqual({ kind: 'gcs', bucket: 'b_1', prefix: 'x' });
    expect(parseLocation('az://lake/sales')).toEqual({ kind: 'azure', account: null, container: 'lake', prefix: 'sales', scheme: 'az' });
    expect(parseLocation('abfss://lake@acct01.dfs.core.windows.net/sales/orders')).toEqual(
      { kind: 'azure', account: 'acct01', container: 'lake', prefix: 'sales/orders', scheme: 'abfss' });
    expect(parseLocation('s3://b12/a%20b/c')).toEqual({ kind: 's3', bucket: 'b12', prefix: 'a b/c' });
  });

  it('displays each kind one way, round-tripping through the parser', () => {
    for (const s of ['s3://my-bucket/lake/t', 'gs://b_1/x', 'az://lake/sales', 'abfss://lake@acct01.dfs.core.windows.net/sales', '/data/t', 's3://bkt']) {
      expect(displayLocation(parseLocation(s))).toBe(s);
      expect(displayLocation(parseLocation(displayLocation(parseLocation(s))))).toBe(s);
    }
    expect(displayLocation(parseLocation('s3://bkt/t'), '_delta_log/00000000000000000000.json')).toBe('s3://bkt/t/_delta_log/00000000000000000000.json');
    expect(objectKey({ kind: 's3', bucket: 'b', prefix: 'p/q' }, 'x.parquet')).toBe('p/q/x.parquet');
    expect(objectKey({ kind: 's3', bucket: 'b', prefix: '' }, 'x.parquet')).toBe('x.parquet');
  });

  it('refuses credentials in the location and never repeats them in the message', () => {
    const e1 = refused('s3://AKIAEXAMPLE:wJalrXUtnFEMIsecret@bucket/t');
    expect(e1.message).not.toMatch(/wJalr|AKIAEXAMPLE/);
    const e2 = refused('abfss://lake@acct.dfs.core.windows.net/t?sv=2024&sig=SECRETSIG');
    expect(e2.message).not.toMatch(/SECRETSIG|sig=/);
    expect(e2.message).toMatch(/AZURE_STORAGE_SAS_TOKEN/);
    const e3 = refused('az://user:hunter2@lake/t');
    expect(e3.message).not.toMatch(/hunter2/);
  });

  it('refuses hostile and malformed locations with one usage line each', () => {
    for (const s of [
      '', '   ', 's3://b12/t\n', 's3://b12/a\u0000b', 's3://b12/../etc', 's3://b12/a//b', 's3://b12/./a',
      's3://B/t', 's3://ab/t', 's3://-bad/t', 's3://bad..name/t', 's3://', 'hdfs://nn/t', 'http://127.0.0.1/t',
      's3://b12/t#frag', 's3://b12/%2e%2e/x', 's3://b12/a%2Fb', 's3://b12/%zz', 's3://b12/%00',
      'abfss://lake@acct.example.com/t', 'abfss://Lake@acct.dfs.core.windows.net/t', 'abfss://lake@a.dfs.core.windows.net/t',
      'az://a--b/t', 'file://otherhost/etc/passwd', 'file:///a%00b', 'gs://x/t', 's3://' + 'a'.repeat(64),
    ]) {
      const e = refused(s);
      expect(e.message.split('\n')).toHaveLength(1);
    }
  });

  it('tells remote from local without parsing', () => {
    expect(looksRemote('s3://b/t')).toBe(true);
    expect(looksRemote('file:///t')).toBe(false);
    expect(looksRemote('/t')).toBe(false);
    expect(looksRemote('C:\\t')).toBe(false);
  });
});
