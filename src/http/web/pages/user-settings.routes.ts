import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { SESSION_COOKIE } from '../session-cookie.ts';
import { settingsFrame } from '../views/settings-nav.ts';

/** What the profile and password settings use. */
export type UserSettingsRouteDeps = {
  readonly services: Pick<DomainServices, 'users' | 'sessions'>;
};

function errorBox(message: string | undefined): Html | null {
  return message ? html`<div class="flash flash-error mb-3" role="alert">${message}</div>` : null;
}

function profileForm(
  context: PageContext,
  values: { fullName: string; description: string },
  error?: string,
): Html {
  return html`<h1 class="h2 pb-2 mb-3 border-bottom">Public profile</h1>
    ${errorBox(error)}
    <form method="post" action="/settings" class="kiln-medium">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group">
        <div class="form-group-header"><label for="full-name">Name</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="full-name" name="full_name" maxlength="100" autocomplete="name" value="${values.fullName}"></div>
      </div>
      <div class="form-group">
        <div class="form-group-header"><label for="bio">Bio</label></div>
        <div class="form-group-body"><textarea class="form-control width-full" id="bio" name="description" maxlength="255" rows="3">${values.description}</textarea></div>
      </div>
      <p class="note mb-3">Your email address is never shown to others.</p>
      <button class="btn btn-primary" type="submit">Update profile</button>
    </form>`;
}

function passwordForm(context: PageContext, error?: string): Html {
  return html`<h1 class="h2 pb-2 mb-3 border-bottom">Change password</h1>
    ${errorBox(error)}
    <form method="post" action="/settings/password" class="kiln-medium">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group">
        <div class="form-group-header"><label for="current">Current password</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="current" name="current" type="password" required autocomplete="current-password"></div>
      </div>
      <div class="form-group">
        <div class="form-group-header"><label for="new-password">New password</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="new-password" name="password" type="password" required minlength="8" autocomplete="new-password" aria-describedby="password-hint"></div>
        <p class="note" id="password-hint">At least 8 characters.</p>
      </div>
      <div class="form-group">
        <div class="form-group-header"><label for="confirm-password">Confirm new password</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="confirm-password" name="confirm" type="password" required minlength="8" autocomplete="new-password"></div>
      </div>
      <button class="btn btn-primary" type="submit">Update password</button>
    </form>`;
}

/** Personal settings: the public profile and the password (tokens live on their own page). */
export function registerUserSettingsRoutes(
  server: FastifyInstance,
  deps: UserSettingsRouteDeps,
  pages: Pages,
): void {
  const { users } = deps.services;
  const profile = (user: User) => ({ fullName: user.fullName, description: user.description });

  server.get('/settings', async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    return pages.send(request, reply, {
      title: 'Profile',
      body: (context) => settingsFrame('/settings', profileForm(context, profile(user))),
    });
  });

  server.post('/settings', async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    const values = {
      fullName: field(request.body, 'full_name', 300),
      description: field(request.body, 'description', 1000),
    };
    return formAction(
      pages,
      request,
      reply,
      async () => {
        await users.updateProfile(user, values);
        return { to: '/settings', flash: 'Profile updated.' };
      },
      {
        render: (error, status) =>
          pages.send(request, reply, {
            status,
            title: 'Profile',
            body: (context) => settingsFrame('/settings', profileForm(context, values, error)),
          }),
      },
    );
  });

  server.get('/settings/password', async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    return pages.send(request, reply, {
      title: 'Password',
      body: (context) => settingsFrame('/settings/password', passwordForm(context)),
    });
  });

  server.post('/settings/password', async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    const next = field(request.body, 'password', 2000);
    const fail = (message: string, status = 422) =>
      pages.send(request, reply, {
        status,
        title: 'Password',
        body: (context) => settingsFrame('/settings/password', passwordForm(context, message)),
      });
    if (next !== field(request.body, 'confirm', 2000)) {
      return fail('The new password and its confirmation differ.');
    }
    const secret = request.cookies[SESSION_COOKIE] ?? '';
    const current = field(request.body, 'current', 2000);
    return formAction(
      pages,
      request,
      reply,
      async () => {
        await deps.services.sessions.changePassword(user, secret, current, next);
        const flash = 'Password changed. Every other session of your account has been signed out.';
        return { to: '/settings/password', flash };
      },
      { render: fail },
    );
  });
}
