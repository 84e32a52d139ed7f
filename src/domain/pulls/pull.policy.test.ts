import { describe, expect, it } from 'vitest';
import { ACCESS_LEVELS, type RepoAccess } from '../repos/repo.types.ts';
import {
  mayChangeReviewComment,
  mayCommentOnPull,
  mayEditPull,
  mayMergePull,
  mayResolveReviewThread,
  pullPermissions,
} from './pull.policy.ts';

const levels = ACCESS_LEVELS.filter((level) => level !== 'none');
const access = (level: RepoAccess['level']): RepoAccess => ({ level });
const author = { id: 'author' };
const other = { id: 'other' };
const pull = { authorId: author.id };

describe('pull policy', () => {
  it('lets writers and administrators merge, never readers or the author alone', () => {
    expect(levels.map((level) => mayMergePull(access(level)))).toEqual([false, true, true]);
    expect(pullPermissions(author, access('read'), pull).merge).toBe(false);
  });

  it('lets the author or a writer edit, close and reopen', () => {
    for (const level of levels) {
      expect(mayEditPull(author, access(level), pull)).toBe(true);
    }
    expect(mayEditPull(other, access('read'), pull)).toBe(false);
    expect(mayEditPull(undefined, access('read'), pull)).toBe(false);
    expect(mayEditPull(other, access('write'), pull)).toBe(true);
    expect(pullPermissions(other, access('read'), pull)).toEqual({ merge: false, toggle: false });
    expect(pullPermissions(author, access('read'), pull)).toEqual({ merge: false, toggle: true });
  });

  it('lets any signed-in reader comment, and nobody anonymous', () => {
    for (const level of levels) expect(mayCommentOnPull(other, access(level))).toBe(true);
    expect(mayCommentOnPull(undefined, access('admin'))).toBe(false);
  });

  it('lets a comment be changed by its author or a writer only', () => {
    const comment = { authorId: author.id };
    expect(mayChangeReviewComment(author, access('read'), comment)).toBe(true);
    expect(mayChangeReviewComment(other, access('read'), comment)).toBe(false);
    expect(mayChangeReviewComment(other, access('write'), comment)).toBe(true);
    expect(mayChangeReviewComment(other, access('admin'), comment)).toBe(true);
    expect(mayChangeReviewComment(undefined, access('write'), comment)).toBe(false);
  });

  it("lets the pull's author or a writer resolve a thread, never another reader", () => {
    expect(mayResolveReviewThread(author, access('read'), pull)).toBe(true);
    expect(mayResolveReviewThread(other, access('read'), pull)).toBe(false);
    expect(mayResolveReviewThread(other, access('write'), pull)).toBe(true);
    expect(mayResolveReviewThread(undefined, access('admin'), pull)).toBe(false);
  });
});
