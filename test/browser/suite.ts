import { startTestServer, type TestServer } from '../support/server.ts';
import { useForSuite } from '../support/world.ts';
import { type Chromium, hasChromium, launchChromium } from './chromium.ts';
import { WorkTree } from './git-cli.ts';

/** CI installs Chromium; a machine without it skips the browser suites rather than failing. */
export const browserEnabled = hasChromium() || process.env.CI === 'true';

/** What a browser suite drives: a server, a Chromium, and a git work tree for pushes. */
export type BrowserWorld = {
  readonly kiln: TestServer;
  readonly chrome: Chromium;
  readonly work: WorkTree;
};

async function startBrowserWorld(env: Record<string, string>): Promise<BrowserWorld> {
  // One browser sends every request from one address: bot protection would meter the suite.
  const kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false', ...env });
  return { kiln, chrome: await launchChromium(), work: new WorkTree() };
}

async function stopBrowserWorld(world: BrowserWorld): Promise<void> {
  await world.chrome.close();
  await world.kiln.close();
  world.work.remove();
}

/**
 * The suite's browser world, handed to `ready`; nothing starts where Chromium is missing.
 * `env`: more SERVICE_* settings for the server (SERVICE_ADMIN_HANDLES, say).
 */
export function useBrowserWorld(
  ready: (world: BrowserWorld) => void | Promise<void>,
  env: Record<string, string> = {},
): void {
  if (browserEnabled) useForSuite(() => startBrowserWorld(env), stopBrowserWorld, ready);
}

/**
 * Signs `handle` in through the login form, as a person would, after dropping whoever was
 * signed in before (a suite that switches people between steps asks for this).
 */
export async function signInAs(
  chrome: Chromium,
  baseUrl: string,
  handle: string,
  password: string,
): Promise<void> {
  const { page } = chrome;
  await chrome.context.clearCookies();
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Username or email').fill(handle);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
