import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { Invalid } from '../../domain/errors.ts';
import { checkSha } from '../ref-names.ts';
import type { RepoHandle } from '../repo-paths.ts';

/** A person and a moment as a commit records them; written in UTC. */
export interface CommitIdent {
  readonly name: string;
  readonly email: string;
  readonly date: Date;
}

export interface NewCommit {
  readonly tree: string;
  readonly parents: readonly string[];
  readonly author: CommitIdent;
  readonly committer: CommitIdent;
  readonly message: string;
}

/** Refuses an identity git could not record as given. */
export function checkIdent(role: string, ident: { name: string; email: string }): void {
  // git strips `<`, `>` and line breaks from idents silently; refuse them instead.
  for (const value of [ident.name, ident.email]) {
    if (/[<>\0\r\n]/.test(value))
      throw new Invalid(`${role} name or email contains a forbidden character`);
  }
  if (withoutCrud(ident.name).length === 0) throw new Invalid(`${role} name is empty`);
  if (ident.email.length === 0) throw new Invalid(`${role} email is empty`);
}

/** What git trims from both ends of an ident's name and email: spaces, controls, punctuation. */
function isCrud(code: number): boolean {
  return code <= 0x20 || '.,:;<>"\\\''.includes(String.fromCharCode(code));
}

function withoutCrud(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isCrud(value.charCodeAt(start))) start++;
  while (end > start && isCrud(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

function identLine(role: string, ident: CommitIdent): string {
  checkIdent(role, ident);
  const seconds = Math.floor(ident.date.getTime() / 1000);
  return `${role} ${withoutCrud(ident.name)} <${withoutCrud(ident.email)}> ${seconds} +0000\n`;
}

/**
 * The bytes of a commit object exactly as `git commit-tree` writes them for the same input: the
 * headers, a blank line, the message ending in one newline.
 */
export function formatCommit(commit: NewCommit): Buffer {
  if (commit.message.includes('\0')) throw new Invalid('the commit message contains NUL');
  const message = commit.message.endsWith('\n') ? commit.message : `${commit.message}\n`;
  const lines = [
    `tree ${checkSha(commit.tree, 'tree')}\n`,
    ...commit.parents.map((parent) => `parent ${checkSha(parent, 'parent')}\n`),
    identLine('author', commit.author),
    identLine('committer', commit.committer),
    '\n',
    message,
  ];
  return Buffer.from(lines.join(''), 'utf8');
}

/**
 * Writes a commit into the repository as a loose object and returns its id, without a process:
 * the zlib-deflated `commit <size>\0<bytes>`, named by its hash (SHA-1, or SHA-256 in a
 * repository whose ids are 64 digits), written to a temporary file and renamed into place the
 * way git does, so a reader never sees half an object. The caller vouches that the tree and the
 * parents exist (a merge has just read them). The work is synchronous on purpose: compressing and
 * writing a few hundred bytes takes microseconds, less than the thread-pool round trips of
 * asynchronous calls would.
 */
export function writeCommit(repo: RepoHandle, commit: NewCommit): string {
  const body = formatCommit(commit);
  const object = Buffer.concat([Buffer.from(`commit ${body.length}\0`, 'utf8'), body]);
  const algorithm = commit.tree.length === 64 ? 'sha256' : 'sha1';
  const sha = createHash(algorithm).update(object).digest('hex');
  const dir = path.join(repo.path, 'objects', sha.slice(0, 2));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = path.join(dir, `tmp_obj_${randomBytes(8).toString('hex')}`);
  try {
    writeFileSync(temporary, deflateSync(object), { flag: 'wx', mode: 0o444 });
    renameSync(temporary, path.join(dir, sha.slice(2)));
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return sha;
}
