import type { Static } from 'typebox';
import { Type } from './type.ts';
import { ApiUserSchema } from './user.ts';

const Url = Type.Union([Type.String(), Type.Null()]);

export const ApiPermissionSchema = Type.Object({
  admin: Type.Boolean(),
  push: Type.Boolean(),
  pull: Type.Boolean(),
});

const InternalTracker = Type.Object({
  enable_time_tracker: Type.Boolean(),
  allow_only_contributors_to_track_time: Type.Boolean(),
  enable_issue_dependencies: Type.Boolean(),
});

/** Every key Gitea 1.22 emits for a Repository, except `parent`. */
const repositoryProperties = {
  id: Type.Integer(),
  owner: ApiUserSchema,
  name: Type.String(),
  full_name: Type.String(),
  description: Type.String(),
  empty: Type.Boolean(),
  private: Type.Boolean(),
  fork: Type.Boolean(),
  template: Type.Boolean(),
  mirror: Type.Boolean(),
  size: Type.Integer(),
  language: Type.String(),
  languages_url: Url,
  html_url: Url,
  url: Url,
  link: Type.String(),
  ssh_url: Type.String(),
  clone_url: Url,
  original_url: Type.String(),
  website: Type.String(),
  stars_count: Type.Integer(),
  forks_count: Type.Integer(),
  watchers_count: Type.Integer(),
  open_issues_count: Type.Integer(),
  open_pr_counter: Type.Integer(),
  release_counter: Type.Integer(),
  default_branch: Type.String(),
  archived: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
  archived_at: Type.String(),
  permissions: ApiPermissionSchema,
  has_issues: Type.Boolean(),
  internal_tracker: Type.Optional(InternalTracker),
  has_wiki: Type.Boolean(),
  has_pull_requests: Type.Boolean(),
  has_projects: Type.Boolean(),
  projects_mode: Type.String(),
  has_releases: Type.Boolean(),
  has_packages: Type.Boolean(),
  has_actions: Type.Boolean(),
  ignore_whitespace_conflicts: Type.Boolean(),
  allow_merge_commits: Type.Boolean(),
  allow_rebase: Type.Boolean(),
  allow_rebase_explicit: Type.Boolean(),
  allow_squash_merge: Type.Boolean(),
  allow_fast_forward_only_merge: Type.Boolean(),
  allow_rebase_update: Type.Boolean(),
  default_delete_branch_after_merge: Type.Boolean(),
  default_merge_style: Type.String(),
  default_allow_maintainer_edit: Type.Boolean(),
  avatar_url: Type.String(),
  internal: Type.Boolean(),
  mirror_interval: Type.String(),
  object_format_name: Type.String(),
  mirror_updated: Type.String(),
};

/** A Repository as nested in another one's `parent` (which carries no `parent` of its own). */
export const ApiParentRepositorySchema = Type.Object(repositoryProperties);

export const ApiRepositorySchema = Type.Object({
  ...repositoryProperties,
  parent: Type.Optional(ApiParentRepositorySchema),
});

export type ApiRepository = Static<typeof ApiRepositorySchema>;
export type ApiParentRepository = Static<typeof ApiParentRepositorySchema>;

export const CreateRepoOptionSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Type.String({ maxLength: 2048 })),
  private: Type.Optional(Type.Boolean()),
  auto_init: Type.Optional(Type.Boolean()),
  default_branch: Type.Optional(Type.String({ maxLength: 255 })),
  gitignores: Type.Optional(Type.String()),
  issue_labels: Type.Optional(Type.String()),
  license: Type.Optional(Type.String()),
  readme: Type.Optional(Type.String()),
  template: Type.Optional(Type.Boolean()),
  trust_model: Type.Optional(Type.String()),
  object_format_name: Type.Optional(Type.Literal('sha1')),
});

export const CreateForkOptionSchema = Type.Object({
  organization: Type.Optional(Type.String({ maxLength: 100 })),
  name: Type.Optional(Type.String({ maxLength: 100 })),
});

export const EditRepoOptionSchema = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 2048 })),
    private: Type.Optional(Type.Boolean()),
    default_branch: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: true },
);

export const AddCollaboratorOptionSchema = Type.Object({
  permission: Type.Optional(Type.String()),
});

export const RepoCollaboratorPermissionSchema = Type.Object({
  permission: Type.String(),
  role_name: Type.String(),
  user: ApiUserSchema,
});
