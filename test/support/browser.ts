import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); `.ci/run` installs it when absent. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Where the console specs save screenshots of every page (desktop 1280×800 and phone 390×844),
 * when `CONSOLE_SCREENSHOTS` names a directory; none are taken otherwise.
 */
export const SCREENSHOTS_DIR = process.env['CONSOLE_SCREENSHOTS'] || undefined;

/** A browser with one page, and what its console said. */
export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors, in order. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * Starts Chromium headless with a fresh profile of its own (a temporary user-data directory,
 * removed on close), and records every console error and uncaught error of its pages.
 */
export async function openBrowser(viewport = { width: 1280, height: 800 }): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'firmledger-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return {
    context,
    page,
    errors,
    async close() {
      try {
        await context.close();
      } finally {
        await rm(profile, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Saves a screenshot of `page` at desktop and phone size as `<name>-desktop.png` and `<name>-phone.png`,
 * when asked to; `fullPage`: the whole page, not only what the window shows.
 */
export async function screenshots(page: Page, name: string, fullPage = false): Promise<void> {
  if (SCREENSHOTS_DIR === undefined) return;
  await mkdir(SCREENSHOTS_DIR, { recursive: true });
  const size = page.viewportSize();
  for (const [suffix, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}-${suffix}.png`), fullPage });
  }
  if (size) await page.setViewportSize(size);
}
