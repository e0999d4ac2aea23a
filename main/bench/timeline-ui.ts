// Benchmark (figures, not a test): the investigation as the user sees it, in Chromium over web
// mode, on the same 10,000-version / 5,000-live-file log as main/bench/history.ts (issue #12,
// "Speed"). Each figure printed beside a same-run baseline:
//  - first paint, cold: from the Open click on a path the server has not opened to the first
//    screen of the table painted (its header facts and the first page of its history: the newest
//    versions, from the listing and the newest commits, issue #25 item 17); the goal (< 1 s) is
//    about this figure, clock started at the click, beside the engine's own log read of the log;
//  - open, cold: from the same click to the whole timeline painted
//    (the chart's bars, the versions list and the commit panel in the DOM, then two frames),
//    clock started at the click; beside it the first open after
//    the server starts (the engine worker not warm yet), the warm reopen of a path already opened
//    (the server's caches answer: what is left is the page's own work), and the engine's own log
//    read of the same log in this process;
//  - a tab switch to the 10,000-row History tab and back (goal < 100 ms), beside switching
//    between two trivial tabs (Proof and Runs) the same way;
//  - stepping a version with the arrow key until the commit panel shows it (goal < 50 ms), beside
//    the detection floor (two animation frames with nothing to do).
// "Painted": the elements are in the DOM, then two requestAnimationFrame callbacks (the frame that
// draws them has run). Times are taken in the page (performance.now), median of the repetitions.
// Each repetition opens its own copy of the log, so no open reuses a cached read.
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { chromiumMissing, launchChromium, startWebMode, stopChromiumSession, type WebMode } from '../../e2e/helpers';
import { openTable } from '../delta/open';
import { repoRoot } from '../engine/repo';
import { writeLog } from './history';

export interface TimelineUiFigures {
  versions: number;
  liveFiles: number;
  runs: number;
  /** The Open click on a path the server has not opened to the first screen painted (header facts and the first page of the history; ms, median; goal < 1000). */
  firstPaintMs: number;
  /** Each cold open's first paint, in order. */
  firstPaintsMs: number[];
  /** The first paint of the first open after the server started (ms). */
  firstOpenFirstPaintMs: number;
  /** The Open click on a path the server has not opened to the timeline painted (ms, median; goal < 1000). */
  openToPaintedMs: number;
  /** Each cold open, in order (the first after the server starts also warms the engine worker). */
  opensMs: number[];
  /** The first of them: the server just started (ms). */
  firstOpenMs: number;
  /** The Open click on a path already opened (the server's caches answer) to the timeline painted (ms, median). */
  warmReopenMs: number;
  /** Baseline: the engine's log read of the same log (DeltaTable.open + every change set), this run (ms, median). */
  logReadMs: number;
  /** Timeline -> History (10,000 rows) painted, and back to the timeline painted (ms, median of each). */
  tabToHistoryMs: number;
  tabBackMs: number;
  /** Baseline: Proof -> Runs and back, painted the same way (ms, median of both directions). */
  tabTrivialMs: number;
  /** The arrow key to the commit panel showing the previous version, painted (ms, median; goal < 50). */
  stepMedianMs: number;
  stepMaxMs: number;
  /** Baseline: two animation frames with nothing to do (the floor of this detection, ms, median). */
  frameFloorMs: number;
  /**
   * Where the open's time goes (medians over the opens): `serverMs` is the time some API request of
   * the open was in flight (from its fetch to its last byte: the engine, the JSON written and sent),
   * `pageMs` the rest (JSON parsed, stores updated, React rendered, the chart painted).
   */
  openServerMs: number;
  openPageMs: number;
  /** Each API call of the (median) open, in order: in flight (up to the paint), the engine's share (Server-Timing), bytes of its JSON. */
  openCalls: OpenCall[];
  /** The page's JSON.parse of the timeline payload (the `forensics` answer), ms (median of 3), on its own. */
  timelineParseMs: number;
}

export interface OpenCall {
  method: string;
  /** Fetch start to the response's last byte (ms). */
  inFlightMs: number;
  /** The engine's share, from the server's Server-Timing header (ms). */
  engineMs: number | null;
  bytes: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r1 = (x: number): number => Math.round(x * 10) / 10;

// In-page helpers, installed once: `__painted(sel...)` resolves when every selector matches and
// two frames have run after that; `__time(action, sel...)` times an action until painted.
const PAGE_HELPERS = `
  window.__painted = (sels) => new Promise((resolve) => {
    const ready = () => sels.every((s) => document.querySelector(s));
    const tick = () => { if (ready()) requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now()))); else requestAnimationFrame(tick); };
    tick();
  });
  window.__time = async (act, sels) => { const t = performance.now(); window.__t0 = t; act(); return (await window.__painted(sels)) - t; };
  // Two moments of one action: the first screen painted, and everything painted.
  window.__time2 = async (act, first, all) => { const t = performance.now(); window.__t0 = t; act(); const a = window.__painted(first); const b = window.__painted(all); return [(await a) - t, (await b) - t]; };
  // The API requests since 'since' (performance.now()): resource timing of each /api/ fetch.
  window.__calls = (since) => performance.getEntriesByType('resource')
    .filter((e) => e.name.includes('/api/') && e.startTime >= since)
    .map((e) => ({ method: e.name.slice(e.name.indexOf('/api/') + 5), start: e.startTime, end: e.responseEnd, bytes: e.decodedBodySize,
      engine: (e.serverTiming || []).find((t) => t.name === 'engine')?.duration ?? null }));
  // Time JSON.parse of one API answer on its own (fetched again, untimed).
  window.__parseOf = async (method, body) => {
    const token = sessionStorage.getItem('lakerec.token');
    const res = await fetch('/api/' + method, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: 'Bearer ' + token } : {}) }, body: JSON.stringify(body) });
    const text = await res.text();
    const ts = [];
    for (let i = 0; i < 3; i++) { const t = performance.now(); JSON.parse(text); ts.push(performance.now() - t); }
    return ts.sort((a, b) => a - b)[1];
  };
`;

interface PageCall { method: string; start: number; end: number; bytes: number; engine: number | null }

/** Chromium's CPU profiler over CDP, when asked for a directory; otherwise nothing. */
function pageProfiler(dir: string | undefined) {
  let session: CDPSession | null = null;
  return {
    async start(page: Page) {
      if (!dir) return;
      session = await page.context().newCDPSession(page);
      await session.send('Profiler.enable');
      await session.send('Profiler.setSamplingInterval', { interval: 200 });
      await session.send('Profiler.start');
    },
    async stop(name: string) {
      if (!dir || !session) return;
      const { profile } = await session.send('Profiler.stop');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `timeline-ui-${name}.cpuprofile`), JSON.stringify(profile));
      await session.detach();
      session = null;
    },
  };
}

/**
 * The time some call was in flight before `until` (the painted moment: the union of their
 * intervals, clipped there), and the calls as figures (a prefetch still running at the paint
 * counts up to the paint).
 */
function splitOpen(all: PageCall[], until: number): { serverMs: number; calls: OpenCall[] } {
  const calls = all.filter((c) => c.start < until).map((c) => ({ ...c, end: Math.min(c.end, until) }));
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  let busy = 0;
  let from = 0;
  let to = 0;
  sorted.forEach((c, i) => {
    if (i === 0 || c.start > to) { busy += to - from; from = c.start; to = c.end; } else to = Math.max(to, c.end);
  });
  busy += to - from;
  return { serverMs: busy, calls: sorted.map((c) => ({ method: c.method, inFlightMs: r1(c.end - c.start), engineMs: c.engine === null ? null : r1(c.engine), bytes: c.bytes })) };
}

type TimeFn = (page: Page, act: string, sels: string[]) => Promise<number>;
const timeIn: TimeFn = (page, act, sels) => page.evaluate(`window.__time(() => { ${act} }, ${JSON.stringify(sels)})`) as Promise<number>;
const click = (testId: string): string => `document.querySelector('[data-testid=${testId}]').click();`;

const TIMELINE_PAINTED = ['[data-testid=timeline-chart] .timeline-bars', '[data-testid=timeline-row]', '[data-testid=commit-detail]'];
/** The first screen of a table: its header facts and the first page of its history (or, if it came first, the whole timeline's rows). */
const FIRST_PAINTED = ['[data-testid=table-facts], [data-testid=investigate-facts]', '[data-testid=first-page] [data-testid=version-row], [data-testid=timeline-row]'];

/**
 * `profileDir`: also write the page's CPU profile (Chromium's, over CDP) of the last open, the
 * way back from History and the steps there, as .cpuprofile files (open them in Chrome DevTools).
 */
export async function benchTimelineUi(opts: { versions?: number; liveFiles?: number; runs?: number; steps?: number; profileDir?: string } = {}): Promise<TimelineUiFigures | { skipped: string }> {
  const missing = chromiumMissing();
  if (missing) return { skipped: missing };
  const versions = opts.versions ?? 10_000;
  const live = opts.liveFiles ?? 5_000;
  const runs = opts.runs ?? 3;
  const steps = opts.steps ?? 10;
  const base = mkdtempSync(join(tmpdir(), 'lakerec-bench-timeline-ui-'));
  let server: WebMode | undefined;
  let browser: Browser | undefined;
  const profile = pageProfiler(opts.profileDir);
  try {
    const first = join(base, 'log-0');
    writeLog(first, versions, live);
    const copies = [first];
    for (let r = 1; r < runs; r++) { copies.push(join(base, `log-${r}`)); cpSync(first, copies[r], { recursive: true }); }
    // The baseline: the engine's own log read, on a copy of its own (no shared caches), this run.
    const reads: number[] = [];
    for (let r = 0; r < runs; r++) {
      const own = join(base, `read-${r}`);
      cpSync(first, own, { recursive: true });
      const t = performance.now();
      const table = await openTable(own);
      await table.changes();
      reads.push(performance.now() - t);
    }
    server = await startWebMode([], join(base, 'user-data'), join(repoRoot(), 'dist', 'main', 'web.js'));
    browser = await launchChromium();
    const errors: string[] = [];
    const opens: number[] = [];
    const firsts: number[] = [];
    const splits: { totalMs: number; serverMs: number; calls: OpenCall[] }[] = [];
    let page: Page | undefined;
    for (const path of copies) {
      // A fresh page each time: the previous table's chart must not satisfy "painted".
      await page?.close();
      page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.pageUrl);
      await page.locator('[data-testid=path-input]').waitFor();
      if (await page.locator('[data-testid=timeline-chart]').count()) throw new Error('bench timeline-ui: a fresh page already shows a timeline');
      await page.evaluate(PAGE_HELPERS);
      await page.fill('[data-testid=path-input]', path);
      if (path === copies[copies.length - 1]) await profile.start(page);
      const [first, took] = (await page.evaluate(`window.__time2(() => { ${click('open-button')} }, ${JSON.stringify(FIRST_PAINTED)}, ${JSON.stringify(TIMELINE_PAINTED)})`)) as [number, number];
      await profile.stop('open');
      firsts.push(first);
      opens.push(took);
      const since = (await page.evaluate('window.__t0')) as number; // the click
      const calls = (await page.evaluate(`window.__calls(${since})`)) as PageCall[];
      splits.push({ totalMs: took, ...splitOpen(calls, since + took) });
      const shown = await page.getAttribute('[data-testid=timeline-versions]', 'data-rows');
      if (shown !== String(versions)) throw new Error(`bench timeline-ui: the versions list has ${shown} rows, expected ${versions}`);
    }
    if (!page) throw new Error('bench timeline-ui: no repetitions');
    // Warm: the last path opened again, in a fresh page each time; the server has it open (its log
    // read and timeline cached). Not each path: the server keeps the two tables opened last, so
    // reopening the first of three copies was a cold open again.
    const reopens: number[] = [];
    for (const path of copies.map(() => copies[copies.length - 1])) {
      await page.close();
      page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(server.pageUrl);
      await page.locator('[data-testid=path-input]').waitFor();
      await page.evaluate(PAGE_HELPERS);
      await page.fill('[data-testid=path-input]', path);
      reopens.push(await timeIn(page, click('open-button'), TIMELINE_PAINTED));
    }
    const timelineParseMs = (await page.evaluate(`window.__parseOf('timeline', { path: ${JSON.stringify(copies[copies.length - 1])} })`)) as number;

    const toHistory: number[] = [];
    const back: number[] = [];
    const trivial: number[] = [];
    for (let r = 0; r < Math.max(3, runs); r++) {
      toHistory.push(await timeIn(page, click('tab-history'), ['[data-testid=screen-history] [data-testid=version-row]']));
      if (r === 0) await profile.start(page);
      back.push(await timeIn(page, click('tab-timeline'), TIMELINE_PAINTED.map((s) => `[data-testid=screen-timeline] ${s}`)));
      await profile.stop('tab-back');
    }
    await timeIn(page, click('tab-proof'), ['[data-testid=screen-proof]']);
    for (let r = 0; r < Math.max(3, runs); r++) {
      trivial.push(await timeIn(page, click('tab-runs'), ['[data-testid=screen-runs]']));
      trivial.push(await timeIn(page, click('tab-proof'), ['[data-testid=screen-proof]']));
    }
    await timeIn(page, click('tab-timeline'), TIMELINE_PAINTED);

    const step: number[] = [];
    const floor: number[] = [];
    await profile.start(page);
    for (let i = 0; i < steps; i++) {
      const before = Number(await page.getAttribute('[data-testid=commit-detail]', 'data-version'));
      if (!(before > 0)) throw new Error(`bench timeline-ui: the commit panel shows version ${before}, cannot step back`);
      step.push(await timeIn(page, "window.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft' }));", [`[data-testid=commit-detail][data-version="${before - 1}"]`]));
      floor.push(await timeIn(page, '', ['body']));
    }
    await profile.stop('steps');
    if (errors.length) throw new Error(`bench timeline-ui: the page threw: ${errors[0]}`);

    const logReadMs = median(reads);
    const openToPaintedMs = median(opens);
    const mid = [...splits].sort((a, b) => a.totalMs - b.totalMs)[Math.floor((splits.length - 1) / 2)];
    return {
      versions, liveFiles: live, runs,
      firstPaintMs: r1(median(firsts)), firstPaintsMs: firsts.map(r1), firstOpenFirstPaintMs: r1(firsts[0]),
      openToPaintedMs: r1(openToPaintedMs), opensMs: opens.map(r1), firstOpenMs: r1(opens[0]), warmReopenMs: r1(median(reopens)), logReadMs: r1(logReadMs),
      tabToHistoryMs: r1(median(toHistory)), tabBackMs: r1(median(back)), tabTrivialMs: r1(median(trivial)),
      stepMedianMs: r1(median(step)), stepMaxMs: r1(Math.max(...step)), frameFloorMs: r1(median(floor)),
      openServerMs: r1(median(splits.map((x) => x.serverMs))), openPageMs: r1(median(splits.map((x) => x.totalMs - x.serverMs))),
      openCalls: mid.calls, timelineParseMs: r1(timelineParseMs),
    };
  } finally {
    await stopChromiumSession(browser, server, base);
  }
}

export function formatTimelineUiFigures(f: TimelineUiFigures | { skipped: string }): string {
  if ('skipped' in f) return `timeline-ui: SKIPPED: ${f.skipped}`;
  return [
    `timeline-ui (Chromium, web mode; ${f.versions.toLocaleString('en-US')} versions, ${f.liveFiles.toLocaleString('en-US')} live files; median of ${f.runs} opens):`,
    `  first paint, cold   ${f.firstPaintMs} ms from the click to the header and the first page of the history painted, on paths the server had not opened (goal < 1000 ms; each: ${f.firstPaintsMs.join(', ')}; the first after the server started ${f.firstOpenFirstPaintMs} ms)`,
    `  open, cold          ${f.openToPaintedMs} ms from the click to the whole timeline painted (each: ${f.opensMs.join(', ')}; the first after the server started ${f.firstOpenMs} ms)`,
    `  beside it           a warm reopen (the server's caches answer) ${f.warmReopenMs} ms; the engine's own log read of the same log ${f.logReadMs} ms`,
    `  open, split         in API calls ${f.openServerMs} ms, in the page ${f.openPageMs} ms (JSON.parse of the timeline payload alone ${f.timelineParseMs} ms)`,
    ...f.openCalls.map((c) => `    ${c.method.padEnd(14)} ${String(c.inFlightMs).padStart(8)} ms in flight, engine ${c.engineMs ?? '?'} ms, ${c.bytes.toLocaleString('en-US')} bytes`),
    `  tab switch          to History (10,000 rows) ${f.tabToHistoryMs} ms, back to the timeline ${f.tabBackMs} ms (goal < 100 ms; two trivial tabs: ${f.tabTrivialMs} ms)`,
    `  step a version      ${f.stepMedianMs} ms median, ${f.stepMaxMs} ms max, arrow key to the commit panel painted (goal < 50 ms; two empty frames: ${f.frameFloorMs} ms)`,
  ].join('\n');
}
