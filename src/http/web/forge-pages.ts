import type { FastifyInstance } from 'fastify';
import type { Pages } from './page.ts';
import { type ActionsRouteDeps, registerActionsRoutes } from './pages/actions.routes.ts';
import { type ActionsJobRouteDeps, registerActionsJobRoutes } from './pages/actions-job.routes.ts';
import {
  type ArtifactDownloadRouteDeps,
  registerArtifactDownloadRoutes,
} from './pages/artifact-download.routes.ts';
import { type CodeRouteDeps, registerCodeRoutes } from './pages/code.routes.ts';
import { type CompareRouteDeps, registerCompareRoutes } from './pages/compare.routes.ts';
import { type GiteaPathRouteDeps, registerGiteaPathRoutes } from './pages/gitea-paths.routes.ts';
import { type HistoryRouteDeps, registerHistoryRoutes } from './pages/history.routes.ts';
import {
  type MergeabilityRouteDeps,
  registerMergeabilityRoutes,
} from './pages/mergeability.routes.ts';
import { type NewRepoRouteDeps, registerNewRepoRoutes } from './pages/new-repo.routes.ts';
import { type OrgMembersRouteDeps, registerOrgMembersRoutes } from './pages/org-members.routes.ts';
import { type OrgNewRouteDeps, registerOrgNewRoutes } from './pages/org-new.routes.ts';
import {
  type OrgSettingsRouteDeps,
  registerOrgSettingsRoutes,
} from './pages/org-settings.routes.ts';
import { type OrgTeamsRouteDeps, registerOrgTeamsRoutes } from './pages/org-teams.routes.ts';
import { type PeopleRouteDeps, registerPeopleRoutes } from './pages/people.routes.ts';
import { type PullPageRouteDeps, registerPullPageRoutes } from './pages/pull-page.routes.ts';
import { registerPullReviewFormRoutes } from './pages/pull-review-forms.routes.ts';
import { type PullListRouteDeps, registerPullListRoutes } from './pages/pulls.routes.ts';
import { type RefRouteDeps, registerRefRoutes } from './pages/refs.routes.ts';
import {
  type ReleaseFormRouteDeps,
  registerReleaseFormRoutes,
} from './pages/release-forms.routes.ts';
import { type ReleaseRouteDeps, registerReleaseRoutes } from './pages/releases.routes.ts';
import {
  type RepoSettingsRouteDeps,
  registerRepoSettingsRoutes,
} from './pages/repo-settings.routes.ts';
import {
  type ReviewThreadRouteDeps,
  registerReviewThreadRoutes,
} from './pages/review-thread.routes.ts';
import { registerSessionRoutes, type SessionRouteDeps } from './pages/sessions.routes.ts';
import { registerTagRoutes, type TagRouteDeps } from './pages/tags.routes.ts';
import {
  registerUserSettingsRoutes,
  type UserSettingsRouteDeps,
} from './pages/user-settings.routes.ts';

/** What the forge's pages use together: the union of what each of them is handed. */
export type ForgePagesDeps = PeopleRouteDeps &
  OrgNewRouteDeps &
  OrgMembersRouteDeps &
  OrgTeamsRouteDeps &
  OrgSettingsRouteDeps &
  GiteaPathRouteDeps &
  NewRepoRouteDeps &
  CodeRouteDeps &
  HistoryRouteDeps &
  RefRouteDeps &
  TagRouteDeps &
  PullListRouteDeps &
  PullPageRouteDeps &
  ReviewThreadRouteDeps &
  CompareRouteDeps &
  MergeabilityRouteDeps &
  ActionsRouteDeps &
  ActionsJobRouteDeps &
  ArtifactDownloadRouteDeps &
  ReleaseRouteDeps &
  ReleaseFormRouteDeps &
  RepoSettingsRouteDeps &
  UserSettingsRouteDeps &
  SessionRouteDeps;

/**
 * The forge's own pages: people and organisations (with members and settings), repositories and their code, history,
 * branches, tags, pull requests, workflow runs and releases, creation, forking and settings.
 */
export function registerForgePages(
  server: FastifyInstance,
  deps: ForgePagesDeps,
  pages: Pages,
): void {
  registerPeopleRoutes(server, deps, pages);
  registerOrgNewRoutes(server, deps, pages);
  registerOrgMembersRoutes(server, deps, pages);
  registerOrgTeamsRoutes(server, deps, pages);
  registerOrgSettingsRoutes(server, deps, pages);
  registerGiteaPathRoutes(server, deps);
  registerNewRepoRoutes(server, deps, pages);
  registerCodeRoutes(server, deps, pages);
  registerHistoryRoutes(server, deps, pages);
  registerRefRoutes(server, deps, pages);
  registerTagRoutes(server, deps, pages);
  registerPullListRoutes(server, deps, pages);
  registerPullPageRoutes(server, deps, pages);
  registerReviewThreadRoutes(server, deps, pages);
  registerPullReviewFormRoutes(server, deps, pages);
  registerCompareRoutes(server, deps, pages);
  registerMergeabilityRoutes(server, deps);
  registerActionsRoutes(server, deps, pages);
  registerActionsJobRoutes(server, deps, pages);
  registerArtifactDownloadRoutes(server, deps);
  registerReleaseRoutes(server, deps, pages);
  registerReleaseFormRoutes(server, deps, pages);
  registerRepoSettingsRoutes(server, deps, pages);
  registerUserSettingsRoutes(server, deps, pages);
  registerSessionRoutes(server, deps, pages);
}
