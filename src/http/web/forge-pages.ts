import type { FastifyInstance } from 'fastify';
import type { App } from '../../app.ts';
import type { Pages } from './page.ts';
import { registerActionsRoutes } from './pages/actions.routes.ts';
import { registerActionsJobRoutes } from './pages/actions-job.routes.ts';
import { registerCodeRoutes } from './pages/code.routes.ts';
import { registerGiteaPathRoutes } from './pages/gitea-paths.routes.ts';
import { registerHistoryRoutes } from './pages/history.routes.ts';
import { registerNewRepoRoutes } from './pages/new-repo.routes.ts';
import { registerPeopleRoutes } from './pages/people.routes.ts';
import { registerPullPageRoutes } from './pages/pull-page.routes.ts';
import { registerPullListRoutes } from './pages/pulls.routes.ts';
import { registerRefRoutes } from './pages/refs.routes.ts';
import { registerReleaseFormRoutes } from './pages/release-forms.routes.ts';
import { registerReleaseRoutes } from './pages/releases.routes.ts';
import { registerRepoSettingsRoutes } from './pages/repo-settings.routes.ts';
import { registerSessionRoutes } from './pages/sessions.routes.ts';
import { registerTagRoutes } from './pages/tags.routes.ts';
import { registerUserSettingsRoutes } from './pages/user-settings.routes.ts';

/**
 * The forge's own pages: people and organisations, repositories and their code, history,
 * branches, tags, pull requests, workflow runs and releases, creation, forking and settings.
 */
export function registerForgePages(server: FastifyInstance, app: App, pages: Pages): void {
  registerPeopleRoutes(server, app, pages);
  registerGiteaPathRoutes(server, app);
  registerNewRepoRoutes(server, app, pages);
  registerCodeRoutes(server, app, pages);
  registerHistoryRoutes(server, app, pages);
  registerRefRoutes(server, app, pages);
  registerTagRoutes(server, app, pages);
  registerPullListRoutes(server, app, pages);
  registerPullPageRoutes(server, app, pages);
  registerActionsRoutes(server, app, pages);
  registerActionsJobRoutes(server, app, pages);
  registerReleaseRoutes(server, app, pages);
  registerReleaseFormRoutes(server, app, pages);
  registerRepoSettingsRoutes(server, app, pages);
  registerUserSettingsRoutes(server, app, pages);
  registerSessionRoutes(server, app, pages);
}
