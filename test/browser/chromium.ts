import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether Debian's Chromium is installed (`.ci/run` installs it when missing). */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM);
}

/** Where screenshots go: a git-ignored folder at the top of the work tree. */
export const SCREENSHOTS = resolve(import.meta.dirname, '../../screenshots');

export type Chromium = {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Console errors and CSP violations seen so far (a page must produce none). */
  readonly problems: string[];
  close(): Promise<void>;
};

/**
 * Debian's Chromium, headless, with a fresh profile and nothing that phones home, driven by
 * playwright-core (which downloads no browser of its own).
 */
export async function launchChromium(options: { javaScript?: boolean } = {}): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), 'kiln-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 800 },
    javaScriptEnabled: options.javaScript ?? true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot as `screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
