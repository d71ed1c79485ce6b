/**
 * Lighthouse (the npm package, 12.x: 13 needs Node ≥ 22.19) on Debian's Chromium, mobile preset (its
 * default: simulated 4× slower CPU, 150 ms round trip, 1.6 Mbit/s, a 412 px phone), Performance only.
 * Each page gets a browser of its own (a fresh profile: an empty cache). A logged-in page gets the
 * customer's tokens put into localStorage first on the 1 KiB floor page of the same origin, so
 * nothing of the application is cached, and Lighthouse is told to keep storage (it would clear the
 * session). Used by `web.bench.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../e2e/browser';

export interface LighthouseResult {
  path: string;
  score: number;
  lcpMs: number;
  tbtMs: number;
  fcpMs: number;
  mainThreadMs: number;
  bytes: number;
}

/** The Chromium flags of docs/architecture.md, headless, with a DevTools port for Lighthouse. */
async function startChromium(): Promise<{ port: number; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'vpn-bench-lh-'));
  const child = spawn(
    CHROMIUM_PATH,
    [
      '--headless=new',
      ...CHROMIUM_FLAGS,
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const port = await new Promise<number>((ok, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`Chromium no abrió su puerto:\n${err}`)), 30_000);
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
      if (m) {
        clearTimeout(timer);
        ok(Number(m[1]));
      }
    });
    child.once('exit', (code) => fail(new Error(`Chromium terminó (${code}):\n${err}`)));
  });
  return {
    port,
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) {
          const killed = new Promise((r) => child.once('exit', r));
          child.kill('SIGKILL');
          await Promise.race([killed, new Promise((r) => setTimeout(r, 5000))]);
        }
      }
      // Chromium's helpers may still be writing the profile for a moment after it exits.
      try {
        rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
      } catch {
        /* a temporary directory left behind is not a failed measurement */
      }
    },
  };
}

/**
 * One Lighthouse run of `baseUrl + path`. `session`: the customer's remembered tokens, stored on
 * `floorPath` (same origin) before the run.
 */
export async function runLighthouse(
  baseUrl: string,
  path: string,
  session?: { access: string; refresh: string; floorPath: string },
): Promise<LighthouseResult> {
  try {
    return await runOnce(baseUrl, path, session);
  } catch (error) {
    // Lighthouse's own failure to record the load (NO_NAVSTART, seen once on a machine at load 15)
    // is a failed measurement, not a slow page: measured once more, and reported if it fails again.
    if (!(error instanceof LighthouseRunError)) throw error;
    console.log(`  (${error.message}: se mide otra vez)`);
    return runOnce(baseUrl, path, session);
  }
}

class LighthouseRunError extends Error {}

async function runOnce(
  baseUrl: string,
  path: string,
  session?: { access: string; refresh: string; floorPath: string },
): Promise<LighthouseResult> {
  const chrome = await startChromium();
  try {
    if (session) {
      const cdp = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
      const context = cdp.contexts()[0];
      if (!context) throw new Error('Chromium sin contexto por defecto');
      const page = await context.newPage();
      await page.goto(baseUrl + session.floorPath);
      await page.evaluate(({ access, refresh }) => {
        localStorage.setItem('access', access);
        localStorage.setItem('refresh', refresh);
      }, session);
      await page.close();
      // Leaves the browser running (connectOverCDP's close only disconnects).
      await cdp.close();
    }
    const result = await lighthouse(baseUrl + path, {
      port: chrome.port,
      logLevel: 'error',
      output: 'json',
      onlyCategories: ['performance'],
      disableStorageReset: Boolean(session),
    });
    if (!result) throw new Error(`Lighthouse no devolvió resultado para ${path}`);
    const { lhr } = result;
    // BENCH_LIGHTHOUSE_DIR: every report kept as JSON (open it in the Lighthouse viewer).
    const dir = process.env.BENCH_LIGHTHOUSE_DIR;
    if (dir) {
      mkdirSync(dir, { recursive: true });
      const name = `${path.replace(/\W+/g, '_') || '_'}-${Date.now()}.json`;
      writeFileSync(join(dir, name), JSON.stringify(lhr));
    }
    if (lhr.runtimeError)
      throw new LighthouseRunError(
        `Lighthouse en ${path}: ${lhr.runtimeError.code ?? lhr.runtimeError.message}`,
      );
    const num = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
    return {
      path,
      score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
      lcpMs: num('largest-contentful-paint'),
      tbtMs: num('total-blocking-time'),
      fcpMs: num('first-contentful-paint'),
      mainThreadMs: num('mainthread-work-breakdown'),
      bytes: num('total-byte-weight'),
    };
  } finally {
    await chrome.close();
  }
}
