import type { Static } from 'typebox';
import { Type } from './type.ts';
import { ApiUserSchema } from './user.ts';

const Url = Type.Union([Type.String(), Type.Null()]);
const ReviewStateSchema = Type.Union([
  Type.Literal('APPROVED'),
  Type.Literal('PENDING'),
  Type.Literal('COMMENT'),
  Type.Literal('REQUEST_CHANGES'),
]);

/** Gitea 1.22's PullReview; `team` is always null (reviews are requested of people). */
export const ApiPullReviewSchema = Type.Object({
  id: Type.Integer(),
  user: Type.Union([ApiUserSchema, Type.Null()]),
  team: Type.Null(),
  state: ReviewStateSchema,
  body: Type.String(),
  commit_id: Type.String(),
  stale: Type.Boolean(),
  official: Type.Boolean(),
  dismissed: Type.Boolean(),
  comments_count: Type.Integer(),
  submitted_at: Type.String(),
  updated_at: Type.String(),
  html_url: Url,
  pull_request_url: Url,
});
export type ApiPullReview = Static<typeof ApiPullReviewSchema>;

/** Gitea 1.22's PullReviewComment: a line comment as a review carries it. */
export const ApiGiteaReviewCommentSchema = Type.Object({
  id: Type.Integer(),
  body: Type.String(),
  user: Type.Union([ApiUserSchema, Type.Null()]),
  resolver: Type.Union([ApiUserSchema, Type.Null()]),
  pull_request_review_id: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
  path: Type.String(),
  commit_id: Type.String(),
  original_commit_id: Type.String(),
  diff_hunk: Type.String(),
  position: Type.Integer(),
  original_position: Type.Integer(),
  html_url: Url,
  pull_request_url: Url,
});
export type ApiGiteaReviewComment = Static<typeof ApiGiteaReviewCommentSchema>;

const Body = Type.String({ maxLength: 65_536 });
/** Gitea's ReviewStateType as a client sends it; empty reads as pending. */
const EventSchema = Type.Union([ReviewStateSchema, Type.Literal('')]);

/** Gitea's CreatePullReviewOptions. */
export const CreatePullReviewOptionsSchema = Type.Object(
  {
    event: Type.Optional(EventSchema),
    body: Type.Optional(Body),
    commit_id: Type.Optional(Type.String({ maxLength: 64 })),
    comments: Type.Optional(
      Type.Array(
        Type.Object(
          {
            path: Type.String({ minLength: 1, maxLength: 4096 }),
            body: Body,
            new_position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
            old_position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
          },
          { additionalProperties: true },
        ),
        { maxItems: 100 },
      ),
    ),
  },
  { additionalProperties: true },
);

/** Gitea's SubmitPullReviewOptions. */
export const SubmitPullReviewOptionsSchema = Type.Object(
  { event: Type.Optional(EventSchema), body: Type.Optional(Body) },
  { additionalProperties: true },
);

/** Gitea's DismissPullReviewOptions. */
export const DismissPullReviewOptionsSchema = Type.Object(
  { message: Type.Optional(Body), priors: Type.Optional(Type.Boolean()) },
  { additionalProperties: true },
);
