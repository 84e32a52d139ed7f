import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ReviewCommentsTable } from '../../db/tables.ts';
import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { diffCommits, mergeBase } from '../../git/diff.ts';
import { isAncestor, resolveCommit } from '../../git/refs.ts';
import { foldId, newId } from '../../lib/ids.ts';
import { Listeners } from '../../lib/listeners.ts';
import { Forbidden, Invalid, NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import { atLeast } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { PullInContext, PullService } from './pull.service.ts';
import { anchorInDiff, fileInDiff, type Side } from './review-anchor.ts';

export type ReviewComment = {
  readonly id: string;
  readonly pullId: string;
  readonly authorId: string;
  readonly body: string;
  readonly path: string;
  readonly line: number | null;
  readonly oldLine: number | null;
  readonly side: Side;
  readonly commitId: string;
  readonly originalCommitId: string;
  readonly diffHunk: string;
  readonly inReplyToId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

export type NewReviewComment = {
  readonly body: string;
  readonly path?: string | undefined;
  readonly line?: number | undefined;
  readonly oldLine?: number | undefined;
  readonly side?: Side | undefined;
  readonly commitId?: string | undefined;
  /** The wire id of the comment this one answers; it gives path, line and commit. */
  readonly inReplyTo?: number | undefined;
};

const MAX_BODY_BYTES = 65_536;

function toComment(row: Selectable<ReviewCommentsTable>): ReviewComment {
  return {
    id: row.id,
    pullId: row.pull_id,
    authorId: row.author_id,
    body: row.body,
    path: row.path,
    line: row.line === null ? null : Number(row.line),
    oldLine: row.old_line === null ? null : Number(row.old_line),
    side: row.side,
    commitId: row.commit_id,
    originalCommitId: row.original_commit_id,
    diffHunk: row.diff_hunk,
    inReplyToId: row.in_reply_to_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/**
 * Line-review comments on a pull's diff. A comment names a file and a line on one side of the
 * diff at a commit of the pull; both must exist in that diff. Comments keep their commit, so
 * later pushes never move them.
 */
export class ReviewCommentService {
  /** Announces each new review comment, with its pull and who wrote it. */
  readonly created = new Listeners<{
    context: PullInContext;
    comment: ReviewComment;
    actor: User;
  }>();
  readonly #db: Db;
  readonly #pulls: PullService;
  readonly #repos: RepoService;
  readonly #catFiles: CatFilePool;

  constructor(db: Db, pulls: PullService, repos: RepoService, catFiles: CatFilePool) {
    this.#db = db;
    this.#pulls = pulls;
    this.#repos = repos;
    this.#catFiles = catFiles;
  }

  async list(viewer: User | undefined, owner: string, name: string, number: number) {
    const context = await this.#pulls.get(viewer, owner, name, number);
    const rows = await this.#db
      .selectFrom('review_comments')
      .selectAll()
      .where('pull_id', '=', context.pull.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return { context, comments: rows.map(toComment) };
  }

  async create(actor: User, owner: string, name: string, number: number, input: NewReviewComment) {
    const context = await this.#pulls.get(actor, owner, name, number);
    const body = input.body;
    if (body.trim() === '' || Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
      throw new Invalid('body must be 1 byte to 64 KiB');
    }
    const parent =
      input.inReplyTo === undefined ? undefined : await this.#findInPull(context, input.inReplyTo);
    const anchor = parent
      ? {
          path: parent.path,
          side: parent.side,
          line: parent.line,
          oldLine: parent.oldLine,
          commitId: parent.commitId,
          hunk: parent.diffHunk,
        }
      : await this.#anchor(context, input);
    const now = Date.now();
    const row: ReviewCommentsTable = {
      id: newId(),
      pull_id: context.pull.id,
      repo_id: context.base.repo.id,
      author_id: actor.id,
      body,
      path: anchor.path,
      line: anchor.line,
      old_line: anchor.oldLine,
      side: anchor.side,
      commit_id: anchor.commitId,
      original_commit_id: anchor.commitId,
      diff_hunk: anchor.hunk,
      in_reply_to_id: parent?.id ?? null,
      created_at: now,
      updated_at: now,
    };
    await this.#db.insertInto('review_comments').values(row).execute();
    const comment = toComment(row);
    await this.created.emit({ context, comment, actor });
    return { context, comment };
  }

  async update(actor: User, owner: string, name: string, wireId: number, body: string) {
    const { comment, context } = await this.#findForChange(actor, owner, name, wireId);
    if (body.trim() === '' || Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
      throw new Invalid('body must be 1 byte to 64 KiB');
    }
    await this.#db
      .updateTable('review_comments')
      .set({ body, updated_at: Date.now() })
      .where('id', '=', comment.id)
      .execute();
    return { context, comment: { ...comment, body, updatedAt: new Date() } };
  }

  async delete(actor: User, owner: string, name: string, wireId: number): Promise<void> {
    const { comment } = await this.#findForChange(actor, owner, name, wireId);
    await this.#db.deleteFrom('review_comments').where('id', '=', comment.id).execute();
  }

  /** The comment with this wire id in the repository, for its author or a repository admin. */
  async #findForChange(actor: User, owner: string, name: string, wireId: number) {
    const base = await this.#repos.get(actor, owner, name);
    const ids = await this.#db
      .selectFrom('review_comments')
      .select('id')
      .where('repo_id', '=', base.repo.id)
      .execute();
    const match = ids.find((row) => foldId(row.id) === wireId);
    const row =
      match &&
      (await this.#db
        .selectFrom('review_comments')
        .selectAll()
        .where('id', '=', match.id)
        .executeTakeFirst());
    if (!row) throw new NotFound(`review comment does not exist [id: ${wireId}]`);
    const comment = toComment(row);
    if (comment.authorId !== actor.id && !atLeast(base.access.level, 'admin')) {
      throw new Forbidden('only the author or a repository admin may change this comment');
    }
    const pull = await this.#db
      .selectFrom('pull_requests')
      .select('number')
      .where('id', '=', comment.pullId)
      .executeTakeFirstOrThrow();
    const context = await this.#pulls.get(actor, owner, name, Number(pull.number));
    return { comment, context };
  }

  async #findInPull(context: PullInContext, wireId: number): Promise<ReviewComment> {
    const rows = await this.#db
      .selectFrom('review_comments')
      .selectAll()
      .where('pull_id', '=', context.pull.id)
      .execute();
    const row = rows.find((candidate) => foldId(candidate.id) === wireId);
    if (!row)
      throw new Invalid(
        `in_reply_to_id does not name a comment of this pull request [id: ${wireId}]`,
      );
    return toComment(row);
  }

  /** Checks path, side and line against the pull's diff at the commit and cuts the hunk. */
  async #anchor(context: PullInContext, input: NewReviewComment) {
    if (!input.path) throw new Invalid('path is required');
    const side: Side =
      input.side ?? (input.line === undefined && input.oldLine !== undefined ? 'LEFT' : 'RIGHT');
    const line = side === 'RIGHT' ? input.line : (input.oldLine ?? input.line);
    if (line === undefined || !Number.isSafeInteger(line) || line < 1) {
      throw new Invalid(
        side === 'RIGHT'
          ? 'line must be a positive line number'
          : 'old_line must be a positive line number',
      );
    }
    const handle = this.#repos.handle(context.base.repo);
    const pullHead = await this.#pulls.currentHead(context);
    const commitId = input.commitId
      ? await resolveCommit(this.#catFiles, handle, input.commitId).catch(() => {
          throw new Invalid('commit_id is not a commit of this pull request');
        })
      : pullHead;
    if (commitId !== pullHead && !(await isAncestor(handle, commitId, pullHead))) {
      throw new Invalid('commit_id is not a commit of this pull request');
    }
    const baseTip = await this.#pulls.branchTip(context.base.repo, context.pull.baseBranch);
    const from = (baseTip && (await mergeBase(handle, baseTip, commitId))) ?? undefined;
    const diff = await diffCommits(this.#catFiles, handle, {
      ...(from ? { from } : {}),
      to: commitId,
      maxLines: 100_000,
    });
    const file = fileInDiff(diff.files, input.path);
    if (!file)
      throw new Invalid(`path is not part of the pull request's diff [path: ${input.path}]`);
    const hunk = anchorInDiff(file, side, line);
    if (hunk === undefined)
      throw new Invalid(`line ${line} (${side}) of ${input.path} is not part of the diff`);
    return {
      path: input.path,
      side,
      line: side === 'RIGHT' ? line : null,
      oldLine: side === 'LEFT' ? line : null,
      commitId,
      hunk,
    };
  }
}
