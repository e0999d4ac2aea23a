// Hostile tables in the window (web mode, the real server and engine): each is refused with a
// readable panel (title, the one-line reason, the code), the server keeps answering, and a good
// table opens afterwards. The tables come from the hostile corpus script (main/testing/hostile-tables.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuck } from '../main/engine/duck';
import { buildHostileCorpus, leaksSecret, type HostileCorpus } from '../main/testing/hostile-tables';
import { chromiumSkip, ensureArtifacts, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';
import { ensureLakes, lake, openByPath } from './lakes';

const missing = chromiumSkip('hostile');

describe.skipIf(missing !== null)('hostile tables in Chromium', () => {
  let dir: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  let corpus: HostileCorpus;
  const errors: string[] = [];

  beforeAll(async () => {
    ensureLakes();
    dir = mkdtempSync(join(tmpdir(), 'lakerec-e2e-hostile-'));
    const duck = await openDuck();
    try {
      corpus = await buildHostileCorpus(join(dir, 'corpus'), duck);
    } finally {
      duck.close();
    }
    ({ server, browser, page } = await startChromiumSession([], join(dir, 'user-data'), { page: { viewport: { width: 1280, height: 800 } }, errors, goto: true }));
  }, 60_000);

  afterAll(async () => {
    await corpus?.close();
    await stopChromiumSession(browser, server, dir);
  });

  const byName = (name: string) => {
    const c = corpus.cases.find((x) => x.name === name);
    if (!c) throw new Error(`no hostile case ${name}`);
    return c;
  };

  for (const [name, shotName] of [
    ['commit is a FIFO', 'hostile-fifo-commit.png'],
    ['commit symlinked to /dev/zero', 'hostile-dev-zero.png'],
  ] as const) {
    it(`refuses "${name}" with a readable panel, without hanging`, async () => {
      const c = byName(name);
      await openByPath(page, c.root);
      const panel = page.locator(`[data-testid=error-panel][data-code=${c.code}]`);
      await panel.waitFor({ timeout: 15_000 });
      const text = (await panel.textContent()) ?? '';
      for (const m of c.mentions) expect(text).toContain(m);
      expect(leaksSecret(text)).toBe(false);
      await page.screenshot({ path: join(ensureArtifacts(), shotName) });
    });
  }

  // A schema the protocol forbids makes the versions that use it unreadable, not the log: the
  // table opens (its history is evidence too) and each version says why it cannot be read.
  it('"two columns named id and ID": the table opens, its versions unreadable with the reason', async () => {
    const c = byName('two columns named id and ID');
    await openByPath(page, c.root);
    const rows = page.locator('[data-testid=timeline-row].unreadable');
    await rows.first().waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid=timeline-row]:not(.unreadable)').count()).toBe(0);
    await rows.first().click();
    const why = (await page.locator('[data-testid=commit-unreadable]').textContent()) ?? '';
    for (const m of c.mentions) expect(why).toContain(m);
    expect(why).toContain('"ID"');
    expect(leaksSecret(why)).toBe(false);
    await page.screenshot({ path: join(ensureArtifacts(), 'hostile-duplicate-columns.png') });
  });

  it('the server still answers: a good table opens after the hostile ones', async () => {
    await openByPath(page, lake('double_load'));
    await page.locator('[data-testid=timeline-chart]').waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
  });
});
