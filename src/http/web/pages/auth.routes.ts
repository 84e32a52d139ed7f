import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import { type DomainError, isDomainError } from '../../../domain/errors.ts';
import { safeRedirectTarget } from '../../protect/safe-redirect.ts';
import { assertCsrf } from '../csrf.ts';
import { setFlash } from '../flash.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '../session-cookie.ts';

function errorBox(message: string | undefined): Html | null {
  return message ? html`<div class="flash flash-error mb-3" role="alert">${message}</div>` : null;
}

function signupForm(
  context: PageContext,
  values: { username: string; email: string },
  error?: string,
): Html {
  return html`<div class="kiln-narrow">
    <h1 class="h2 mb-3">Create your account</h1>
    ${errorBox(error)}
    <form method="post" action="/signup" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group"><div class="form-group-header"><label for="username">Username</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="username" name="username" required maxlength="40" autocomplete="username" value="${values.username}"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="email">Email</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="email" name="email" type="email" required autocomplete="email" value="${values.email}"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="password">Password</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="password" name="password" type="password" required minlength="8" autocomplete="new-password"></div></div>
      <button class="btn btn-primary btn-block" type="submit">Sign up</button>
    </form>
    <p class="mt-3 text-center">Already have an account? <a href="/login">Sign in</a></p>
  </div>`;
}

function loginForm(
  context: PageContext,
  values: { login: string; redirect: string },
  error?: string,
): Html {
  return html`<div class="kiln-narrow">
    <h1 class="h2 mb-3">Sign in to Kiln</h1>
    ${errorBox(error)}
    <form method="post" action="/login" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <input type="hidden" name="redirect" value="${values.redirect}">
      <div class="form-group"><div class="form-group-header"><label for="login">Username or email</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="login" name="login" required autocomplete="username" value="${values.login}"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="password">Password</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="password" name="password" type="password" required autocomplete="current-password"></div></div>
      <button class="btn btn-primary btn-block" type="submit">Sign in</button>
    </form>
    <p class="mt-3 text-center">New here? <a href="/signup">Create an account</a></p>
  </div>`;
}

function messageOf(error: DomainError): string {
  return error.code === 'conflict' ? 'That username or email is already taken.' : error.message;
}

/** Sign-up, sign-in and sign-out. Forms post back to themselves and work without JavaScript. */
export function registerAuthRoutes(server: FastifyInstance, app: App, pages: Pages): void {
  const closed = () =>
    html`<div class="blankslate"><h1 class="h2">Registration is closed</h1><p>Ask an administrator for an account.</p></div>`;

  server.get('/signup', async (request, reply) => {
    if (!app.config.auth.openRegistration)
      return pages.send(request, reply, { status: 403, title: 'Sign up', body: closed() });
    return pages.send(request, reply, {
      title: 'Sign up',
      body: (context) => signupForm(context, { username: '', email: '' }),
    });
  });

  server.post('/signup', async (request, reply) => {
    assertCsrf(request);
    if (!app.config.auth.openRegistration)
      return pages.send(request, reply, { status: 403, title: 'Sign up', body: closed() });
    const values = {
      username: field(request.body, 'username', 100).trim(),
      email: field(request.body, 'email', 300).trim(),
    };
    try {
      const user = await app.services.users.createUser({
        handle: values.username,
        email: values.email,
        password: field(request.body, 'password', 2000),
      });
      setSessionCookie(
        reply,
        await app.services.sessions.start(user, { userAgent: request.headers['user-agent'] }),
        pages.secure(request),
      );
      setFlash(
        reply,
        { kind: 'success', message: `Welcome to Kiln, ${user.handle}!` },
        pages.secure(request),
      );
      return reply.redirect('/', 303);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      return pages.send(request, reply, {
        status: 422,
        title: 'Sign up',
        body: (context) => signupForm(context, values, messageOf(error)),
      });
    }
  });

  server.get('/login', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const redirect = safeRedirectTarget(query.redirect);
    if (request.viewer.kind === 'user') return reply.redirect(redirect, 303);
    return pages.send(request, reply, {
      title: 'Sign in',
      body: (context) => loginForm(context, { login: '', redirect }),
    });
  });

  server.post('/login', async (request, reply) => {
    assertCsrf(request);
    const login = field(request.body, 'login', 300).trim();
    const redirect = safeRedirectTarget(field(request.body, 'redirect', 4096));
    const user = await app.services.users.authenticate(
      login,
      field(request.body, 'password', 2000),
    );
    if (!user) {
      return pages.send(request, reply, {
        status: 401,
        title: 'Sign in',
        body: (context) =>
          loginForm(context, { login, redirect }, 'Incorrect username or password.'),
      });
    }
    setSessionCookie(
      reply,
      await app.services.sessions.start(user, { userAgent: request.headers['user-agent'] }),
      pages.secure(request),
    );
    return reply.redirect(redirect, 303);
  });

  server.post('/logout', async (request, reply) => {
    assertCsrf(request);
    const secret = request.cookies[SESSION_COOKIE];
    if (secret) await app.services.sessions.end(secret);
    clearSessionCookie(reply);
    return reply.redirect('/', 303);
  });
}
