/**
 * Every kind of page at a phone's width: a representative set (home, a repository's front page,
 * a file, its history, a pull's diff, settings, organisation and admin pages) is loaded in a real
 * Chromium at 1280 and at 390 CSS pixels. At 390 the page itself never scrolls sideways
 * (`scrollWidth <= innerWidth`): headers wrap, tables and code scroll inside their own boxes,
 * forms take the full width. Screenshots of both widths go to the git-ignored `screenshots/`.
 */
import { describe, expect, it } from 'vitest';
import { commitFiles } from '../../src/git/test-support.ts';
import type { TestServer } from '../support/server.ts';
import { type Chromium, screenshot } from './chromium.ts';
import { browserEnabled, useBrowserWorld } from './suite.ts';

let kiln: TestServer;
let chrome: Chromium;

const LONG_LINE = `export const table = [${Array.from({ length: 40 }, (_, i) => `'entry-number-${i}'`).join(', ')}];`;

useBrowserWorld(
  async (world) => {
    ({ kiln, chrome } = world);
    const { user } = await kiln.make.user({
      handle: 'narrowadmin',
      password: 'a long enough secret',
    });
    const { repos, pulls, orgs } = kiln.app.services;
    const org = await orgs.createOrg({ name: 'narrow-org', owner: user });
    const { repo } = await repos.create(user, {
      name: 'gadget-with-a-rather-long-repository-name',
      orgName: org.handle,
      description: 'A repository whose description runs on for quite a few words, to wrap',
    });
    const dir = repos.handle(repo).path;
    await commitFiles(dir, {
      branch: 'main',
      files: {
        'README.md': `# Gadget\n\nA very wide table:\n\n| ${'column | '.repeat(12)}\n|${'---|'.repeat(12)}\n| ${'value-value | '.repeat(12)}\n\n\`\`\`\n${LONG_LINE}\n\`\`\`\n`,
        'src/a-deeply/nested/directory/with-a-long-file-name.ts': `${LONG_LINE}\nexport const x = 1;\n`,
      },
      message: 'First commit with a subject line that is long enough to need wrapping on phones',
    });
    await commitFiles(dir, {
      branch: 'feature/a-branch-name-that-is-long',
      files: {
        'src/a-deeply/nested/directory/with-a-long-file-name.ts': `${LONG_LINE}\nexport const x = 2;\n// ${LONG_LINE}\n`,
      },
      message: 'Change x',
    });
    await pulls.create(user, org.handle, repo.name, {
      title: 'A pull request with a title long enough to wrap on a narrow screen',
      head: 'feature/a-branch-name-that-is-long',
      base: 'main',
    });
  },
  { SERVICE_ADMIN_HANDLES: 'narrowadmin' },
);

const REPO = '/repos/narrow-org/gadget-with-a-rather-long-repository-name';
const PAGES: ReadonlyArray<readonly [name: string, path: string]> = [
  ['home', '/'],
  ['explore', '/explore'],
  ['repo-home', REPO],
  ['file', `${REPO}/src/main/src/a-deeply/nested/directory/with-a-long-file-name.ts`],
  ['history', `${REPO}/commits/main`],
  ['pull', `${REPO}/pulls/1`],
  ['pull-diff', `${REPO}/pulls/1/files`],
  ['repo-settings', `${REPO}/settings`],
  ['new-repo', '/new'],
  ['user-settings', '/settings'],
  ['tokens', '/settings/tokens'],
  ['org', '/narrow-org'],
  ['org-members', '/org/narrow-org/members'],
  ['org-settings', '/org/narrow-org/settings'],
  ['admin', '/admin'],
  ['admin-users', '/admin/users'],
  ['admin-repos', '/admin/repos'],
  ['admin-runners', '/admin/runners'],
  ['admin-housekeeping', '/admin/housekeeping'],
];

describe.runIf(browserEnabled)('pages at 1280 and 390 pixels', () => {
  it('never scroll sideways at 390', async () => {
    const { page, problems } = chrome;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${kiln.url}/login`);
    await page.getByLabel('Username or email').fill('narrowadmin');
    await page.getByLabel('Password').fill('a long enough secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/');

    const overflowing: string[] = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      for (const [name, path] of PAGES) {
        const response = await page.goto(kiln.url + path);
        expect(response?.status(), path).toBe(200);
        await screenshot(page, `${width === 390 ? 'narrow' : 'wide'}-${name}`);
        if (width !== 390) continue;
        const { scrollWidth, innerWidth, culprits } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
          // What sticks out, for the failure message.
          culprits: Array.from(document.querySelectorAll('body *'))
            .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
            .slice(0, 5)
            .map((el) => `${el.tagName.toLowerCase()}.${Array.from(el.classList).join('.')}`),
        }));
        if (scrollWidth > innerWidth) {
          overflowing.push(`${path}: ${scrollWidth} > ${innerWidth} (${culprits.join(', ')})`);
        }
      }
    }
    expect(overflowing).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);
});
