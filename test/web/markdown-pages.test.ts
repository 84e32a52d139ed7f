/**
 * Markdown on pages as GitHub shows it: a Renovate pull body with its collapsible sections and
 * table, review comments rendered as markdown, a README's allowed HTML, all in the same
 * `markdown-body` box, and nothing that could run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { commitTo, page, signedIn } from './fixtures.ts';

const RENOVATE_UPDATE = readFileSync(
  new URL('../fixtures/renovate/update.md', import.meta.url),
  'utf8',
);

/**
 * A page without its text areas: the forms that edit a comment hold its markdown source
 * (escaped, as any text is), which is not what the page renders.
 */
const rendered = (html: string) => html.replace(/<textarea\b[^>]*>[\s\S]*?<\/textarea>/g, '');

let kiln: TestServer;
let owner: User;
let password: string;
let repo: Repository;
let base: string;

useWorld({ people: ['owner'], repos: [{ owner: 'owner', name: 'deps' }] }, async (world) => {
  kiln = world.kiln;
  ({ user: owner, password } = world.people.owner);
  repo = world.repos.deps;
  base = `/repos/${owner.handle}/deps`;
  const root = await commitTo(kiln, repo, {
    branch: 'main',
    files: {
      'package.json': '{\n  "dependencies": {}\n}\n',
      'README.md': '# Deps\n\n<details><summary>Install</summary>\n\n- [x] `npm i`\n\n</details>\n',
    },
  });
  await commitTo(kiln, repo, {
    branch: 'renovate/fastify-5.x',
    parents: [root],
    files: { 'package.json': '{\n  "dependencies": { "fastify": "5.2.1" }\n}\n' },
    message: 'Update dependency fastify to v5.2.1',
  });
  await kiln.app.services.pulls.create(owner, owner.handle, 'deps', {
    title: 'Update dependency fastify to v5.2.1',
    head: 'renovate/fastify-5.x',
    base: 'main',
    body: RENOVATE_UPDATE,
  });
  await kiln.app.services.reviewComments.create(owner, owner.handle, 'deps', 1, {
    body: 'Pin **this** to `5.2.1`?\n\n<details><summary>why</summary>\n\nSee #1\n\n</details>\n\n<img src=x onerror=alert(1)>',
    path: 'package.json',
    side: 'RIGHT',
    line: 2,
  });
});

/** The `class` attributes of the page's rendered documents. */
const boxes = (text: string) => text.match(/class="[^"]*markdown-body[^"]*"/g) ?? [];

describe('markdown on pages', () => {
  it('shows a Renovate pull body with real details, a table and the README styles', async () => {
    const browser = await signedIn(kiln, owner.handle, password);
    const conversation = await page(browser, `${base}/pulls/1`);
    expect(conversation).toContain('<div class="Box-body markdown-body"><p>This PR contains');
    expect(conversation).toContain('<summary>fastify/fastify (fastify)</summary>');
    expect(conversation).toMatch(/<details>\s*<summary>fastify\/fastify/);
    expect(conversation).toContain('<th>Package</th>');
    expect(conversation).toContain(
      '<input type="checkbox" disabled class="task-list-item-checkbox" />',
    );
    expect(rendered(conversation)).not.toMatch(
      /&lt;(details|summary|sub)|rebase-check|renovate-debug/,
    );
    const readme = await page(browser, base);
    expect(readme).toContain('<article class="markdown-body">');
    expect(readme).toContain('<summary>Install</summary>');
    expect(readme).toContain('<h1 id="deps">Deps</h1>');
  });

  it('renders review comments as markdown in the same styles, without what could run', async () => {
    const browser = await signedIn(kiln, owner.handle, password);
    for (const path of [`${base}/pulls/1`, `${base}/pulls/1/files`]) {
      const shown = await page(browser, path);
      expect(shown).toContain('Pin <strong>this</strong> to <code>5.2.1</code>?');
      expect(shown).toContain('<details><summary>why</summary>');
      expect(shown).toContain(`<p>See <a href="${base}/pulls/1" class="issue-link">#1</a></p>`);
      expect(rendered(shown)).not.toContain('onerror');
      expect(boxes(shown)).toContain('class="Box-body markdown-body kiln-comment-body"');
    }
  });
});
