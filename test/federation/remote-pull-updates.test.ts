import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { forkAcross } from './fork-across.ts';
import { apiCall as call } from './support.ts';

type Json = Record<string, unknown>;

/**
 * A branch proposed from a fork on A to its upstream on B: pushing to the branch on A moves the
 * pull request on B (its head, its commits, its `synchronized`), and only the proposer can.
 */
describe('a push to a proposed branch updates the pull request upstream', () => {
  let world: Awaited<ReturnType<typeof forkAcross>>;
  const upstreamPull = async () =>
    (await call(world.b, world.author.token, 'GET', `/repos/${world.author.handle}/tool/pulls/1`))
      .json;
  const headOf = async () => ((await upstreamPull()).head as Json).sha;

  beforeAll(async () => {
    world = await forkAcross();
  });
  afterAll(() => world?.close());

  it('moves the head upstream, records the push, and ignores anyone but the proposer', async () => {
    const { a, b, git, work, author, proposer, stranger, pushTo } = world;
    const first = await world.proposeFeature();
    await eventually(async () => (await upstreamPull()).number === 1, 30_000);
    expect(await headOf()).toBe(first);

    // Someone else's Update naming the pull changes nothing.
    const pullUrl = `${b.url}/${author.handle}/tool/pulls/1`;
    const branch = (repo: string, ref: string) => ({ type: 'Branch', context: repo, ref });
    const forged = {
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://forgefed.org/ns'],
      id: `${stranger.id}#update/1`,
      type: 'Update',
      actor: stranger.id,
      object: {
        id: pullUrl,
        type: 'Ticket',
        attachment: {
          type: 'Offer',
          origin: branch(`${a.url}/repos/${proposer.handle}/tool`, 'refs/heads/feature'),
          target: branch(`${b.url}/repos/${author.handle}/tool`, 'refs/heads/main'),
        },
      },
    };
    const inbox = `${b.url}/federation/repos/${author.handle}/tool/inbox`;
    expect((await stranger.send(inbox, forged)).status).toBeLessThan(300);

    const second = await git.commit(work, { 'feature.txt': 'one\ntwo\n' }, 'feature, part two');
    await pushTo(a, proposer, 'tool', 'refs/heads/feature');
    expect(await eventually(async () => (await headOf()) === second, 30_000)).toBe(true);

    // The push is on the pull's timeline, as a local push would be.
    // Recorded as the pull's synchronized is heard, which may be just after its head moved.
    const pageText = async () =>
      (await (await fetch(`${b.url}/${author.handle}/tool/pulls/1`)).text())
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ');
    const pushed = `pushed 1 commit (${first.slice(0, 7)}..${second.slice(0, 7)})`;
    expect(await eventually(async () => (await pageText()).includes(pushed), 30_000)).toBe(true);
    expect(await pageText()).toContain('Commits2');
  });

  it('a line comment upstream reaches the proposer’s server beside the proposal; no one else’s', async () => {
    const { a, b, author, proposer, stranger } = world;
    const pullUrl = `${b.url}/${author.handle}/tool/pulls/1`;
    const forged = {
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://forgefed.org/ns'],
      id: `${stranger.id}#create/1`,
      type: 'Create',
      actor: stranger.id,
      object: {
        id: `${stranger.id}#note/1`,
        type: 'Note',
        attributedTo: stranger.id,
        inReplyTo: pullUrl,
        content: 'forged',
      },
    };
    const inbox = `${a.url}/federation/users/${proposer.handle}/inbox`;
    expect((await stranger.send(inbox, forged)).status).toBeLessThan(300);
    await world.commentUpstream('Why **two** lines?', 2);

    const fork = `/repos/${proposer.handle}/tool/federation/pulls`;
    const notes = world.proposalNotes;
    expect(await eventually(async () => (await notes()).length > 0, 30_000)).toBe(true);
    const [note, ...more] = await notes();
    expect(more).toEqual([]);
    expect(note).toMatchObject({
      body: 'Why **two** lines?',
      path: 'feature.txt',
      line: 2,
      user: {
        login: `${author.handle}@${new URL(b.url).host}`,
        html_url: `${b.url}/${author.handle}`,
      },
    });
    expect(String(note?.html_url).startsWith(`${pullUrl}/`)).toBe(true);
    // The fork's page shows it under the proposal, rendered as a local comment is.
    const page = await (await fetch(`${a.url}/${proposer.handle}/tool`)).text();
    expect(page).toContain(`@${author.handle}@${new URL(b.url).host}`);
    expect(page).toContain('Why <strong>two</strong> lines?');
    expect(page).not.toContain('forged');
    // Raw markup in a remote note is sanitised as in a local comment, never passed through.
    await world.commentUpstream(
      'Look <img src=x onerror="alert(1)"> <script>alert(2)</script> [here](javascript:alert(3))',
      1,
    );
    expect(await eventually(async () => (await notes()).length === 2, 30_000)).toBe(true);
    const after = await (await fetch(`${a.url}/${proposer.handle}/tool`)).text();
    expect(after).toContain('Look');
    const notesHtml = after.slice(after.indexOf('kiln-proposals'));
    expect(notesHtml).not.toMatch(/<[^>]*\sonerror=|<script|href="javascript:/i);
    // Another proposal's id, or none, is 404.
    expect((await call(a, proposer.token, 'GET', `${fork}/nope/comments`)).status).toBe(404);
  });

  it('replies, edits, deletions and review bodies upstream follow to the proposer’s server', async () => {
    const { a, b, author, proposer } = world;
    const repoPath = `/repos/${author.handle}/tool/pulls`;
    const notes = world.proposalNotes;
    const noteSaying = async (body: string) => (await notes()).find((note) => note.body === body);
    const arrives = (body: string) =>
      eventually(async () => (await noteSaying(body)) !== undefined, 30_000);
    const first = await noteSaying('Why **two** lines?');
    expect(first).toBeDefined();
    const comments = (await call(b, author.token, 'GET', `${repoPath}/1/comments`))
      .json as unknown as Json[];
    const parent = comments.find((comment) => comment.body === 'Why **two** lines?');

    // A reply in the thread answers the parent's note, not the pull.
    const reply = await call(b, author.token, 'POST', `${repoPath}/1/comments`, {
      body: 'On second thought, _one_ is fine',
      in_reply_to_id: parent?.id as number,
    });
    expect(reply.status).toBe(201);
    expect(await arrives('On second thought, _one_ is fine')).toBe(true);
    expect((await noteSaying('On second thought, _one_ is fine'))?.in_reply_to).toBe(first?.id);

    // An edit replaces the note's body there; a deletion takes it away; neither doubles a note.
    const edited = await call(
      b,
      author.token,
      'PATCH',
      `${repoPath}/comments/${String(reply.json.id)}`,
      {
        body: 'On second thought, keep both',
      },
    );
    expect(edited.status).toBe(200);
    expect(await arrives('On second thought, keep both')).toBe(true);
    expect(await noteSaying('On second thought, _one_ is fine')).toBeUndefined();
    const before = (await notes()).length;
    const gone = await call(
      b,
      author.token,
      'DELETE',
      `${repoPath}/comments/${String(reply.json.id)}`,
    );
    expect(gone.status).toBe(204);
    expect(await eventually(async () => (await notes()).length === before - 1, 30_000)).toBe(true);
    expect(await noteSaying('On second thought, keep both')).toBeUndefined();

    // A review's body goes with its verdict named, and shows on the fork's page rendered.
    const reviewed = await call(b, author.token, 'POST', `${repoPath}/1/reviews`, {
      event: 'REQUEST_CHANGES',
      body: 'Please add **tests**',
    });
    expect(reviewed.status).toBe(200);
    expect(await arrives('Please add **tests**')).toBe(true);
    expect((await noteSaying('Please add **tests**'))?.review_state).toBe('changes_requested');
    const page = await (await fetch(`${a.url}/${proposer.handle}/tool`)).text();
    expect(page).toContain('data-review-state="changes_requested"');
    expect(page).toContain('Please add <strong>tests</strong>');
    // Each comment is there once.
    const bodies = (await notes()).map((note) => note.body);
    expect(new Set(bodies).size).toBe(bodies.length);
  });
});
