import { runGit } from './command.ts';
import { branchRef, zeroSha } from './ref-names.ts';
import type { RepoHandle } from './repo-paths.ts';

export interface Identity {
  readonly name: string;
  readonly email: string;
}

export interface SeedOptions {
  readonly branch: string;
  /** Top-level files of the first commit: plain names, no directories. */
  readonly files: ReadonlyArray<{ readonly name: string; readonly content: string }>;
  readonly message: string;
  readonly author: Identity;
}

function identityEnv(identity: Identity, when: Date): Record<string, string> {
  const date = `${Math.floor(when.getTime() / 1000)} +0000`;
  const clean = (text: string) => text.replace(/[<>\n\r\0]/g, '').trim() || 'Kiln';
  return {
    GIT_AUTHOR_NAME: clean(identity.name),
    GIT_AUTHOR_EMAIL: clean(identity.email),
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: clean(identity.name),
    GIT_COMMITTER_EMAIL: clean(identity.email),
    GIT_COMMITTER_DATE: date,
  };
}

/**
 * Makes the first commit of an empty repository (`auto_init`) without a working tree: blobs,
 * one tree, one commit, and the branch created only if it does not exist yet.
 * Returns the commit's sha.
 */
export async function seedInitialCommit(repo: RepoHandle, options: SeedOptions): Promise<string> {
  const ref = branchRef(options.branch);
  const entries: string[] = [];
  for (const file of options.files) {
    if (!/^[A-Za-z0-9._-]+$/.test(file.name) || file.name.startsWith('.')) {
      throw new Error(`seed file name ${file.name} is not a plain name`);
    }
    const { stdout } = await runGit(['hash-object', '-w', '--stdin'], {
      gitDir: repo.path,
      input: file.content,
    });
    entries.push(`100644 blob ${stdout.toString('utf8').trim()}\t${file.name}\n`);
  }
  const tree = (await runGit(['mktree'], { gitDir: repo.path, input: entries.join('') })).stdout
    .toString('utf8')
    .trim();
  const commit = (
    await runGit(['commit-tree', tree], {
      gitDir: repo.path,
      input: `${options.message}\n`,
      env: identityEnv(options.author, new Date()),
    })
  ).stdout
    .toString('utf8')
    .trim();
  await runGit(['update-ref', '-m', 'initial commit', ref, commit, zeroSha()], {
    gitDir: repo.path,
  });
  return commit;
}
