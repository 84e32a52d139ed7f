/**
 * The frame every page shares: landmarks, the header search box, sign-in or the account menu,
 * flash messages, the footer with the version, a strict Content-Security-Policy with nothing
 * inline, and labelled form controls on every page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KILN_VERSION } from '../../src/version.ts';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: Browser;
let sha: string;

const PAGES = () => [
  '/',
  '/explore',
  '/lay',
  '/new',
  '/settings',
  '/settings/password',
  '/repos/lay/out',
  '/repos/lay/out/src/main/dir',
  '/repos/lay/out/src/main/dir/a.md',
  '/repos/lay/out/commits/main',
  `/repos/lay/out/commit/${sha}`,
  '/repos/lay/out/branches',
  '/repos/lay/out/tags',
  '/repos/lay/out/releases',
  '/repos/lay/out/settings',
  '/repos/lay/empty',
  '/repos/lay/nothing-here',
];

/** Form controls without a label (by `for`, by wrapping, or aria-label) and images without alt. */
function unlabelled(body: string): string[] {
  const problems: string[] = [];
  const labelled = new Set([...body.matchAll(/<label[^>]*\sfor="([^"]+)"/g)].map((m) => m[1]));
  // Drop controls wrapped in a label: `<label><input …> text</label>`.
  const unwrapped = body.replace(/<label>[\s\S]*?<\/label>/g, '');
  for (const match of unwrapped.matchAll(/<(input|select|textarea)\b([^>]*)>/g)) {
    const attributes = match[2] ?? '';
    if (/type="hidden"/.test(attributes) || /aria-label="/.test(attributes)) continue;
    const id = /\sid="([^"]+)"/.exec(attributes)?.[1];
    if (!id || !labelled.has(id)) problems.push(match[0]);
  }
  for (const match of body.matchAll(/<img\b[^>]*>/g)) {
    if (!/\salt="/.test(match[0])) problems.push(match[0]);
  }
  return problems;
}

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false' });
  const { user, password } = await kiln.make.user({ handle: 'lay' });
  const repo = await makeRepo(kiln, user, 'out', { description: 'Layout' });
  await makeRepo(kiln, user, 'empty');
  sha = await commitTo(kiln, repo, {
    branch: 'main',
    files: { 'README.md': '# Out\n', 'dir/a.md': '| a |\n|--:|\n| 1 |\n' },
  });
  owner = await signedIn(kiln, 'lay', password);
});
afterAll(async () => {
  await kiln?.close();
});

describe('every page', () => {
  it('has landmarks, the search box, the version, labelled controls and nothing inline', async () => {
    for (const path of PAGES()) {
      for (const browser of [owner, new Browser(kiln.url)]) {
        const response = await browser.get(path);
        if (response.status === 303) continue;
        const body = await response.text();
        const csp = response.headers.get('content-security-policy') ?? '';
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("style-src 'self'");
        expect(csp).not.toContain('unsafe-inline');
        expect(body).toContain('<header class="Header kiln-header" role="banner">');
        expect(body).toContain('<main id="main"');
        expect(body).toContain('role="contentinfo"');
        expect(body).toContain(`Kiln ${KILN_VERSION}`);
        expect(body).toContain('<form role="search" method="get" action="/search"');
        expect(body).toContain('href="#main"');
        // No inline scripts, event handlers or style attributes: the CSP would block them.
        expect([path, body.match(/<script(?![^>]*\ssrc=)[^>]*>/g)]).toEqual([path, null]);
        expect([path, body.match(/\son[a-z]+="/g)]).toEqual([path, null]);
        expect([path, body.match(/\sstyle="/g)]).toEqual([path, null]);
        expect([path, unlabelled(body)]).toEqual([path, []]);
      }
    }
  });

  it('is ASCII on the wire when its content is', async () => {
    // Kiln's own `·`, `…` and `→` go out as references: one of them would make the server hold
    // the whole page as a two-byte string, several times the work to encode.
    for (const path of PAGES()) {
      const response = await owner.get(path);
      if (response.status === 303) continue;
      const body = await response.text();
      expect([path, body.match(/[\u0080-\uffff]+/g)]).toEqual([path, null]);
    }
  });

  it('shows sign-in links to visitors and the account menu to people', async () => {
    const anonymous = await page(new Browser(kiln.url), '/repos/lay/out');
    expect(anonymous).toContain('href="/login?redirect=%2Frepos%2Flay%2Fout"');
    expect(anonymous).toContain('href="/signup"');
    const signed = await page(owner, '/repos/lay/out');
    expect(signed).toContain('Signed in as <strong>lay</strong>');
    expect(signed).toContain('action="/logout"');
    expect(signed).toContain('href="/settings/tokens"');
  });

  it('renders errors in the layout', async () => {
    const missing = await new Browser(kiln.url).get('/repos/lay/nothing-here');
    expect(missing.status).toBe(404);
    const body = await missing.text();
    expect(body).toContain('Page not found');
    expect(body).toContain('role="banner"');
  });

  it('serves the stylesheets', async () => {
    for (const name of ['primer.css', 'highlight.css', 'kiln.css']) {
      const response = await fetch(`${kiln.url}/assets/${name}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
    }
  });
});
