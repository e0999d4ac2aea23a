// What a user typed or dropped, to a table root: one message for each way it can be wrong.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertTableFolder, ioError, resolveUserPath } from './paths';
import { defaultSample, defaultUserDataDir, resolveSamples, sampleLakesDir } from './samples';

const dir = mkdtempSync(join(tmpdir(), 'lakerec-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a typed path', () => {
  it('~, file URLs and relative paths become one absolute path; a remote location its display form', () => {
    expect(resolveUserPath('~')).toBe(homedir());
    expect(resolveUserPath(' ~/lakes/t/ ')).toBe(join(homedir(), 'lakes', 't'));
    expect(resolveUserPath('t/./x/', '/work')).toBe('/work/t/x');
    expect(resolveUserPath(pathToFileURL('/tmp/a b').href)).toBe('/tmp/a b');
    expect(resolveUserPath('s3://bucket/prefix/')).toMatch(/^s3:\/\/bucket\/prefix/);
    expect(() => resolveUserPath('file://otherhost/x')).toThrow(expect.objectContaining({ code: 'usage' }));
  });

  it('a file-system error named by its kind', () => {
    expect(ioError({ code: 'ENOENT' }, '/p')).toMatchObject({ code: 'not_found', message: 'Nothing exists at /p.' });
    expect(ioError({ code: 'EPERM' }, '/p')).toMatchObject({ code: 'io_error', message: 'Permission denied: /p cannot be read by this user.' });
    expect(ioError({ code: 'ENOTDIR' }, '/p')).toMatchObject({ code: 'not_a_folder' });
    expect(ioError(new Error('disk on fire'), '/p')).toMatchObject({ code: 'io_error', message: 'Could not read /p: disk on fire' });
    expect(ioError(null, '/p').message).toBe('Could not read /p: null');
  });
});

describe('a table folder', () => {
  it('nothing, a file, a folder without a log, a log that is a file: each its own refusal', async () => {
    await expect(assertTableFolder(join(dir, 'none'))).rejects.toMatchObject({ code: 'not_found', message: `No folder at ${join(dir, 'none')}.` });
    writeFileSync(join(dir, 'file'), 'x');
    await expect(assertTableFolder(join(dir, 'file'))).rejects.toMatchObject({ code: 'not_a_folder' });
    await expect(assertTableFolder(join(dir, 'file', 'below'))).rejects.toMatchObject({ code: 'not_a_folder' });
    mkdirSync(join(dir, 'plain'));
    await expect(assertTableFolder(join(dir, 'plain'))).rejects.toMatchObject({ code: 'not_a_delta_table', message: expect.stringContaining('it has no _delta_log folder') });
    mkdirSync(join(dir, 'odd'));
    writeFileSync(join(dir, 'odd', '_delta_log'), '');
    await expect(assertTableFolder(join(dir, 'odd'))).rejects.toMatchObject({ code: 'not_a_delta_table', message: expect.stringContaining('_delta_log is a file') });
    mkdirSync(join(dir, 'good', '_delta_log'), { recursive: true });
    expect(await assertTableFolder(join(dir, 'good'))).toBe(join(dir, 'good', '_delta_log'));
    expect(await assertTableFolder('s3://b/t')).toBe('s3://b/t/_delta_log');
  });
});

describe('the sample tables', () => {
  it('the demo first, else a clean one, else the first, else none', () => {
    const s = (...names: string[]) => names.map((name) => ({ name, path: `/${name}` }));
    expect(defaultSample(s('a', 'control', 'demo'))?.name).toBe('demo');
    expect(defaultSample(s('a', 'Orders-big'))?.name).toBe('Orders-big');
    expect(defaultSample(s('b', 'a'))?.name).toBe('b');
    expect(defaultSample([])).toBeNull();
  });

  it('none built: nothing, or a small demo table written into the app-data folder', async () => {
    expect(sampleLakesDir('/app')).toBe(join('/app', 'sample-lakes', 'built'));
    expect(await resolveSamples(join(dir, 'app'), join(dir, 'data'), false)).toEqual([]);
    const one = await resolveSamples(join(dir, 'app'), join(dir, 'data'), true);
    expect(one).toEqual([{ name: 'orders (demo)', path: join(dir, 'data', 'demo-lake', 'orders') }]);
    expect(await assertTableFolder(one[0].path)).toBe(join(one[0].path, '_delta_log'));
    // the second time the table is there already
    expect(await resolveSamples(join(dir, 'app'), join(dir, 'data'), true)).toEqual(one);
  });

  it('the app-data folder per platform, LAKEREC_USER_DATA first', () => {
    expect(defaultUserDataDir({ LAKEREC_USER_DATA: '/u' }, 'linux')).toBe('/u');
    expect(defaultUserDataDir({ APPDATA: 'C:/R' }, 'win32')).toBe(join('C:/R', 'lakerec'));
    expect(defaultUserDataDir({}, 'win32')).toBe(join(homedir(), 'AppData', 'Roaming', 'lakerec'));
    expect(defaultUserDataDir({}, 'darwin')).toBe(join(homedir(), 'Library', 'Application Support', 'lakerec'));
    expect(defaultUserDataDir({ XDG_CONFIG_HOME: '/x' }, 'linux')).toBe(join('/x', 'lakerec'));
    expect(defaultUserDataDir({}, 'linux')).toBe(join(homedir(), '.config', 'lakerec'));
  });
});
