/**
 * Review threads on pull request pages, without JavaScript: comments on one line are one
 * thread in the files and conversation views; a reply form under each thread; editing and
 * deleting one's own comment (writers may delete anyone's, deleting asks first); resolving and
 * reopening a thread by the pull's author or a writer, a resolved thread folded with who
 * resolved it. The REST edit and delete follow the same rule.
 */
import { describe, expect, it } from 'vitest';
import type { ReviewComment } from '../../src/domain/pulls/review-comment.service.ts';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import { foldId } from '../../src/lib/ids.ts';
import { branchesFromRoot } from '../support/branches.ts';
import { apiCall, type Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: Person;
let author: Person;
let writer: Person;
let reader: Person;
let repo: Repository;
let url: string;

useWorld(
  {
    people: ['owner', 'author', 'writer', 'reader'],
    repos: [{ owner: 'owner', name: 'threads' }],
  },
  async (world) => {
    kiln = world.kiln;
    ({ owner, author, writer, reader } = world.people);
    repo = world.repos.threads;
    const services = kiln.app.services;
    await branchesFromRoot(
      kiln,
      repo,
      { files: { 'app.txt': 'one\ntwo\nthree\n' } },
      {
        feature: {
          files: { 'app.txt': 'one\nTWO\nTHREE\n', 'notes.txt': 'a\nb\nc\n' },
          message: 'Shout',
        },
      },
    );
    await services.collaborators.put(
      owner.user,
      owner.user.handle,
      'threads',
      writer.user.handle,
      'write',
    );
    await services.pulls.create(author.user, owner.user.handle, 'threads', {
      title: 'Shout',
      head: 'feature',
      base: 'main',
      body: '',
    });
    url = `/repos/${owner.user.handle}/threads/pulls/1`;
  },
);

/** A comment on a line of the pull's new side, made through the service. */
async function comment(
  by: Person,
  line: number,
  body: string,
  path = 'app.txt',
): Promise<ReviewComment> {
  const { comment } = await kiln.app.services.reviewComments.create(
    by.user,
    owner.user.handle,
    'threads',
    1,
    { body, path, line },
  );
  return comment;
}

/** The HTML of one thread on a page, from its opening tag to the next thread or the end. */
function threadIn(html: string, first: ReviewComment): string {
  const start = html.indexOf(`id="thread-${foldId(first.id)}"`);
  expect(start).toBeGreaterThan(-1);
  const next = html.indexOf('class="kiln-thread', start + 1);
  return html.slice(start, next === -1 ? undefined : next);
}

const browsers = new Map<Person, Browser>();
async function as(person: Person): Promise<Browser> {
  const known = browsers.get(person);
  if (known) return known;
  const browser = await signedIn(kiln, person.user.handle, person.password);
  browsers.set(person, browser);
  return browser;
}

describe('review threads', () => {
  it('shows the comments on one line as one thread in both views', async () => {
    const first = await comment(reader, 2, 'Why shout two?');
    await comment(writer, 2, 'Because it matters.');
    const other = await comment(reader, 3, 'And three?');
    for (const path of [`${url}/files`, url]) {
      const html = await page(await as(reader), path);
      const thread = threadIn(html, first);
      expect(thread.indexOf('Why shout two?')).toBeLessThan(thread.indexOf('Because it matters.'));
      expect(thread).not.toContain('And three?');
      expect(threadIn(html, other)).toContain('And three?');
      expect(thread).toContain(`name="in_reply_to" value="${foldId(first.id)}"`);
    }
    // The conversation shows the diff hunk once per thread, above its first comment.
    const conversation = threadIn(await page(await as(reader), url), first);
    expect(conversation.match(/kiln-pre/g)).toHaveLength(1);
  });

  it('takes a reply through the form under the thread', async () => {
    const first = await comment(author, 1, 'Is one fine?');
    const browser = await as(reader);
    const posted = await browser.post(`${url}/comments`, {
      in_reply_to: String(foldId(first.id)),
      body: 'One is **fine**.',
      back: 'files',
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toMatch(/\/pulls\/1\/files#comment-\d+$/);
    const thread = threadIn(await page(browser, `${url}/files`), first);
    expect(thread).toContain('<strong>fine</strong>');
    const listed = await apiCall(kiln.url, `/repos/${owner.user.handle}/threads/pulls/1/comments`, {
      token: reader.token,
    });
    const reply = listed.body.find((c: { body: string }) => c.body === 'One is **fine**.');
    expect(reply.in_reply_to_id).toBe(foldId(first.id));
    expect(reply.line).toBe(1);
  });

  it('lets the author edit and delete their comment, after a confirmation', async () => {
    const mine = await comment(reader, 3, 'Typo herr.');
    const id = foldId(mine.id);
    const browser = await as(reader);
    const html = await page(browser, `${url}/files`);
    expect(html).toContain(`action="${url}/comments/${id}/edit"`);
    const edited = await browser.post(`${url}/comments/${id}/edit`, { body: 'Typo here.' });
    expect(edited.status).toBe(303);
    expect(await page(browser, url)).toContain('Typo here.');

    const asked = await browser.post(`${url}/comments/${id}/delete`, { back: 'files' });
    expect(asked.status).toBe(200);
    const question = await asked.text();
    expect(question).toContain('Delete this comment?');
    expect(question).toContain('name="confirm" value="yes"');
    expect(await page(browser, url)).toContain('Typo here.');
    const deleted = await browser.post(`${url}/comments/${id}/delete`, { confirm: 'yes' });
    expect(deleted.status).toBe(303);
    expect(await page(browser, url)).not.toContain('Typo here.');
  });

  it("lets a writer delete someone else's comment, and nobody else change it", async () => {
    const theirs = await comment(author, 3, 'Author says hi.');
    const id = foldId(theirs.id);
    const stranger = await as(reader);
    expect(await page(stranger, `${url}/files`)).not.toContain(
      `action="${url}/comments/${id}/edit"`,
    );
    const refused = await stranger.post(`${url}/comments/${id}/edit`, { body: 'hijacked' });
    expect(refused.status).toBe(303);
    expect(await page(stranger, url)).toContain(
      'only the author or a writer may change this comment',
    );
    expect(await page(stranger, url)).not.toContain('hijacked');
    const removed = await (await as(writer)).post(`${url}/comments/${id}/delete`, {
      confirm: 'yes',
    });
    expect(removed.status).toBe(303);
    expect(await page(stranger, url)).not.toContain('Author says hi.');
  });

  it('resolves a thread for the author or a writer, folded with who resolved it', async () => {
    const first = await comment(reader, 1, 'Resolve me.', 'notes.txt');
    const reply = await comment(writer, 1, 'Second word.', 'notes.txt');
    const id = foldId(first.id);
    const stranger = await as(reader);
    // A reader who did not open the pull sees no button, and a crafted post changes nothing.
    expect(threadIn(await page(stranger, url), first)).not.toContain('Resolve conversation');
    await stranger.post(`${url}/comments/${id}/resolve`, {});
    expect(threadIn(await page(stranger, url), first)).toContain('data-thread="open"');

    const resolved = await (await as(author)).post(`${url}/comments/${id}/resolve`, {
      back: 'files',
    });
    expect(resolved.status).toBe(303);
    expect(resolved.headers.get('location')).toBe(`${url}/files#thread-${id}`);
    for (const path of [url, `${url}/files`]) {
      const thread = threadIn(await page(stranger, path), first);
      expect(thread).toMatch(/^id="thread-\d+" data-thread="resolved"/);
      expect(thread).toContain(`resolved by <strong>${author.user.handle}</strong>`);
      expect(thread).toContain('Resolve me.');
    }
    // Deleting the first comment keeps the thread resolved: the next one takes the mark over.
    await (await as(writer)).post(`${url}/comments/${id}/delete`, { confirm: 'yes' });
    const kept = threadIn(await page(stranger, url), reply);
    expect(kept).toContain('data-thread="resolved"');
    const reopened = await (await as(writer)).post(
      `${url}/comments/${foldId(reply.id)}/unresolve`,
      {},
    );
    expect(reopened.status).toBe(303);
    const open = threadIn(await page(await as(writer), url), reply);
    expect(open).toContain('data-thread="open"');
    expect(open).toContain('Resolve conversation');
  });

  it('lets a writer edit and delete through REST what the pages allow', async () => {
    const theirs = await comment(reader, 2, 'Over REST.', 'notes.txt');
    const path = `/repos/${owner.user.handle}/threads/pulls/comments/${foldId(theirs.id)}`;
    const byAuthor = await apiCall(kiln.url, path, {
      method: 'PATCH',
      body: { body: 'x' },
      token: author.token,
    });
    expect(byAuthor.status).toBe(403);
    const edited = await apiCall(kiln.url, path, {
      method: 'PATCH',
      body: { body: 'Moderated.' },
      token: writer.token,
    });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toBe('Moderated.');
    expect((await apiCall(kiln.url, path, { method: 'DELETE', token: writer.token })).status).toBe(
      204,
    );
  });
});
