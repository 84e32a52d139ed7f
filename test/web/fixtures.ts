import type { Repository } from '../../src/domain/repos/repo.types.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { commitFiles, type TestCommit } from '../../src/git/test-support.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';

/** A repository made through RepoService, as the new-repository form would. */
export async function makeRepo(
  kiln: TestServer,
  owner: User,
  name: string,
  options: { private?: boolean; description?: string; orgName?: string } = {},
): Promise<Repository> {
  const { repo } = await kiln.app.services.repos.create(owner, {
    name,
    description: options.description,
    private: options.private,
    orgName: options.orgName,
  });
  return repo;
}

/** Writes a commit straight into the repository (git fast-import) and returns its id. */
export async function commitTo(
  kiln: TestServer,
  repo: Repository,
  commit: TestCommit,
): Promise<string> {
  return commitFiles(kiln.app.services.repos.handle(repo).path, commit);
}

/** A browser signed in as the person (through the real sign-in form). */
export async function signedIn(
  kiln: TestServer,
  login: string,
  password: string,
): Promise<Browser> {
  const browser = new Browser(kiln.url);
  await browser.get('/login');
  const response = await browser.post('/login', { login, password });
  if (response.status !== 303) throw new Error(`sign-in failed: ${response.status}`);
  return browser;
}

/** The text of a page, failing the test with the status when it is not the expected one. */
export async function page(browser: Browser, path: string, status = 200): Promise<string> {
  const response = await browser.get(path);
  const body = await response.text();
  if (response.status !== status) {
    throw new Error(
      `GET ${path}: expected ${status}, got ${response.status}\n${body.slice(0, 2000)}`,
    );
  }
  return body;
}

/** Reloads a page until `seen` holds for it (for what happens in the background, as deliveries). */
export async function pageUntil(
  browser: Browser,
  path: string,
  seen: (body: string) => boolean,
): Promise<string> {
  for (let tries = 0; tries < 100; tries++) {
    const body = await page(browser, path);
    if (seen(body)) return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${path} never showed what was awaited`);
}
