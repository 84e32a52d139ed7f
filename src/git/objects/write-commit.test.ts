import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Invalid } from '../../domain/errors.ts';
import { runGit } from '../command.ts';
import type { RepoHandle } from '../repo-paths.ts';
import { commitFiles, makeTestRepo, type TempDir } from '../test-support.ts';
import { type CommitIdent, formatCommit, writeCommit } from './write-commit.ts';

let tmp: TempDir;
let repo: RepoHandle;

beforeEach(async () => {
  ({ tmp, repo } = await makeTestRepo());
});
afterEach(() => tmp.remove());

const author: CommitIdent = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  date: new Date('2024-05-01T12:00:00Z'),
};
const committer: CommitIdent = {
  ...author,
  // git trims spaces and punctuation from both ends of a name: the same must come out.
  name: ' Kiln Ünïcode Jr.',
  date: new Date(1_720_000_000_000),
};

async function git(args: string[], env: Record<string, string> = {}, input?: string) {
  const { stdout } = await runGit(args, { gitDir: repo.path, env, input });
  return stdout.toString('utf8').trim();
}

/** What `git commit-tree` records for the same input, for comparison. */
function commitTree(tree: string, parents: string[], message: string): Promise<string> {
  const when = (ident: CommitIdent) => `@${Math.floor(ident.date.getTime() / 1000)} +0000`;
  return git(
    ['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent])],
    {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: when(author),
      GIT_COMMITTER_NAME: committer.name,
      GIT_COMMITTER_EMAIL: committer.email,
      GIT_COMMITTER_DATE: when(committer),
    },
    message,
  );
}

describe('writeCommit', () => {
  it('writes the very object git commit-tree writes, readable and fsck-clean', async () => {
    const first = await commitFiles(repo.path, { branch: 'main', files: { 'a.txt': 'a\n' } });
    const second = await commitFiles(repo.path, {
      branch: 'topic',
      files: { 'b.txt': 'b\n' },
      parents: [first],
    });
    const tree = await git(['rev-parse', `${second}^{tree}`]);
    const message = "Merge pull request 'Ünïcode <b>title</b>' (#1) from topic into main";

    const sha = writeCommit(repo, { tree, parents: [first, second], author, committer, message });

    expect(sha).toBe(await commitTree(tree, [first, second], `${message}\n`));
    expect(await git(['cat-file', '-t', sha])).toBe('commit');
    expect(await git(['log', '-1', '--format=%P%n%an <%ae>%n%cn%n%s', sha])).toBe(
      `${first} ${second}\nAda Lovelace <ada@example.com>\nKiln Ünïcode Jr\n${message}`,
    );
    await git(['fsck', '--strict', '--no-dangling']);
    // Writing it again is harmless: the same name, the same bytes.
    expect(writeCommit(repo, { tree, parents: [first, second], author, committer, message })).toBe(
      sha,
    );
  });

  it('names objects with SHA-256 in a SHA-256 repository', async () => {
    const dir = path.join(tmp.path, 'sha256.git');
    await runGit(['init', '--bare', '--quiet', '--object-format=sha256', dir]);
    repo = { key: 'sha256', path: dir } as RepoHandle;
    const tree = await git(['mktree'], {}, '');
    expect(tree).toHaveLength(64);

    const sha = writeCommit(repo, { tree, parents: [], author, committer, message: 'root' });

    expect(sha).toBe(await commitTree(tree, [], 'root\n'));
    await git(['fsck', '--strict', '--no-dangling']);
  });

  it('refuses what git could not record as given', () => {
    const commit = { tree: '4b825dc642cb6eb9a060e54bf8d69288fbee4904', parents: [], committer };
    for (const bad of [
      { ...author, name: 'a <b>' },
      { ...author, email: 'x\n@y' },
      { ...author, email: '' },
      { ...author, name: ' .' },
    ]) {
      expect(() => formatCommit({ ...commit, author: bad, message: 'm' })).toThrow(Invalid);
    }
    expect(() => formatCommit({ ...commit, author, message: 'a\0b' })).toThrow(Invalid);
    expect(() => formatCommit({ ...commit, tree: 'HEAD', author, message: 'm' })).toThrow(Invalid);
  });
});
