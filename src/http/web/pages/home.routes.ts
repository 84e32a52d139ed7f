import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import { html } from '../html.ts';
import type { Pages } from '../page.ts';

/** The start page. Grows with repositories and pulls; for now it introduces Kiln. */
export function registerHomeRoutes(server: FastifyInstance, _app: App, pages: Pages): void {
  server.get('/', async (request, reply) => {
    const user = request.viewer.kind === 'user' ? request.viewer.user : undefined;
    return pages.send(request, reply, {
      title: user ? 'Dashboard' : 'Welcome',
      body: user
        ? html`<h1 class="h2">Welcome back, ${user.fullName || user.handle}</h1>
            <p class="color-fg-muted">Create a <a href="/settings/tokens">personal access token</a> to use the API and git over HTTP.</p>`
        : html`<div class="blankslate blankslate-spacious">
            <h1 class="blankslate-heading f0">Kiln</h1>
            <p class="f3">A self-hosted git forge: push and clone over HTTP, review pull requests line by line, cut releases, and point the tools you already use at its Gitea-compatible API.</p>
            <p><a class="btn btn-primary mr-2" href="/signup">Sign up</a><a class="btn" href="/explore">Explore repositories</a></p>
          </div>`,
    });
  });
}
