/**
 * Content crafted to make the renderers slow, and a repository that serves it: files on which
 * highlight.js's grammars backtrack and markdown built to be expensive, as a README, a release
 * and a pull request's description. Used by the hostile render suite and bench/render-load.ts.
 */
import { expect } from 'vitest';
import { GitClient, repoUrl } from '../support/git.ts';
import type { HostileWorld } from './support.ts';

/**
 * Unbounded, highlight.js spends about 40 s on this Perl file (114 s at 512 KB), and seconds on
 * the CSS and LaTeX ones. The JSON file is quick to highlight, but each byte pair becomes a
 * span: 300 KB of text would be 5 MB of markup.
 */
export const CRAFTED_FILES: Readonly<Record<string, string>> = {
  'slow.pl': 's'.repeat(300_000),
  'slow.css': 'a{'.repeat(200_000),
  'slow.tex': '\\'.repeat(400_000),
  'wide.json': `[${'1,'.repeat(150_000)}1]`,
};

/**
 * About 400 KB of markdown (nested lists, unclosed brackets and emphasis): under the default
 * size cap, so it is rendered, and most of a second's work for markdown-it.
 */
export function craftedMarkdown(seed: number): string {
  const lists = Array.from(
    { length: 5000 },
    (_, i) => `${' '.repeat((i * 7 + seed) % 40)}- *a* [b](c) _d_ **e`,
  ).join('\n');
  return `${lists}\n\n${'['.repeat(100_000)}\n\n${'*a **b '.repeat(15_000)}`;
}

/**
 * Pushes the crafted files and README to the world's repository (plus `fresh.pl`, like
 * `slow.pl` but never among the returned pages), gives pull 1 and a new release crafted
 * descriptions, and returns the paths of the pages that render them.
 */
export async function seedCraftedContent(world: HostileWorld): Promise<string[]> {
  const { kiln, owner, repo, token } = world;
  const git = await GitClient.create();
  try {
    const url = repoUrl(kiln.url, owner, repo, { token, as: 'username' });
    const work = await git.clone(url);
    const files = { ...CRAFTED_FILES, 'fresh.pl': `${CRAFTED_FILES['slow.pl']}s` };
    await git.commit(work, { ...files, 'README.md': craftedMarkdown(0) }, 'crafted');
    await git.ok(['push', '-q', url, 'main'], { cwd: work });
  } finally {
    await git.dispose();
  }
  const api = (method: string, path: string, body: unknown) =>
    fetch(`${kiln.url}/api/v1/repos/${owner}/${repo}${path}`, {
      method,
      headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await api('PATCH', '/pulls/1', { body: craftedMarkdown(1) })).status).toBe(201);
  const release = { tag_name: 'v2', target_commitish: 'main', body: craftedMarkdown(2) };
  expect((await api('POST', '/releases', release)).status).toBe(201);
  const base = `/repos/${owner}/${repo}`;
  return [
    base,
    ...Object.keys(CRAFTED_FILES).map((name) => `${base}/src/main/${name}`),
    `${base}/releases`,
    `${base}/pulls/1`,
  ];
}
