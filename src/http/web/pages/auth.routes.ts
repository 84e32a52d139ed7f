import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config/config.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { LoginSubject } from '../../../domain/sessions/login-throttle.ts';
import { type Protection, requestClientIp } from '../../protect/metering.plugin.ts';
import { safeRedirectTarget } from '../../protect/safe-redirect.ts';
import { assertCsrf, rotateCsrf } from '../csrf.ts';
import { formAction } from '../form-action.ts';
import { captchaFailureMessage, formCaptcha } from '../form-captcha.ts';
import { field, formValue } from '../forms.ts';
import type { Pages } from '../page.ts';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from '../session-cookie.ts';
import { loginForm, signupClosed, signupForm, waitInWords } from './auth.view.ts';

/** What sign-up, sign-in and sign-out use. */
export type AuthRouteDeps = {
  readonly services: Pick<DomainServices, 'users' | 'sessions' | 'loginThrottle'>;
  readonly config: Pick<Config, 'protect' | 'signup'>;
};

const WRONG = 'Incorrect username or password.';
// Only a username clashes (names are public); an address another account holds never refuses
// a sign-up (UserService.signUp).
const NAME_TAKEN = 'This username is taken. If it is yours, sign in instead.';

/**
 * Sign-up, sign-in and sign-out. Forms post back to themselves and work without JavaScript
 * (the captcha, when one is asked for, is the exception). Sign-in is throttled per account name
 * and client address (LoginThrottle). Sign-up answers alike whether or not the e-mail address
 * belongs to an account; refused sign-ups, and those whose address was held, count against the
 * client address like failed sign-ins, which is what probing for addresses looks like.
 */
export function registerAuthRoutes(
  server: FastifyInstance,
  deps: AuthRouteDeps,
  pages: Pages,
  protection: Protection,
): void {
  const { users, sessions, loginThrottle } = deps.services;
  const captcha = formCaptcha(deps.config, protection);
  const signupCaptcha = captcha !== null && deps.config.protect.signupCaptcha;
  const captchaAfter = deps.config.protect.loginCaptchaAfter;
  const clientAddress = (request: FastifyRequest) => requestClientIp(request, protection.trusted);

  /** Whether the sign-in form asks for the captcha: after enough recent failures, if any. */
  const loginWantsCaptcha = async (subject: LoginSubject) =>
    captcha !== null && (await loginThrottle.recentFailures(subject)) >= captchaAfter;

  const widgetFor = (reply: FastifyReply, wanted: boolean) => {
    if (!wanted || captcha === null) return null;
    captcha.allowWidget(reply);
    return captcha.widget();
  };

  const signIn = (
    request: FastifyRequest,
    reply: FastifyReply,
    session: { secret: string; expiresAt: Date },
  ) => {
    setSessionCookie(reply, session, pages.secure(request));
    rotateCsrf(request, reply, session.secret, pages.secure(request));
  };

  const origin = (request: FastifyRequest) => ({ userAgent: request.headers['user-agent'] });

  server.get('/signup', async (request, reply) => {
    if (!deps.config.signup.enabled)
      return pages.send(request, reply, { status: 403, title: 'Sign up', body: signupClosed() });
    const widget = widgetFor(reply, signupCaptcha);
    return pages.send(request, reply, {
      title: 'Sign up',
      body: (context) => signupForm(context, { username: '', email: '' }, { captcha: widget }),
    });
  });

  server.post('/signup', async (request, reply) => {
    assertCsrf(request);
    if (!deps.config.signup.enabled)
      return pages.send(request, reply, { status: 403, title: 'Sign up', body: signupClosed() });
    const values = {
      username: field(request.body, 'username', 100).trim(),
      email: field(request.body, 'email', 300).trim(),
    };
    const address = clientAddress(request);
    const refuse = (status: number, error: string) => {
      const widget = widgetFor(reply, signupCaptcha);
      return pages.send(request, reply, {
        status,
        title: 'Sign up',
        body: (context) => signupForm(context, values, { error, captcha: widget }),
      });
    };
    if (signupCaptcha && captcha !== null) {
      const failure = await captcha.verify(request, address);
      if (failure !== undefined) return refuse(403, captchaFailureMessage(failure));
    }
    const verdict = await loginThrottle.attempt({ address });
    if (!verdict.allowed) {
      reply.header('Retry-After', String(verdict.retryAfterSeconds));
      return refuse(
        429,
        `Too many attempts from your address. Please try again in ${waitInWords(verdict.retryAfterSeconds)}.`,
      );
    }
    return formAction(
      pages,
      request,
      reply,
      async () => {
        const { user, recorded } = await users.signUp({
          handle: values.username,
          email: values.email,
          password: field(request.body, 'password', 2000),
        });
        if (recorded) await loginThrottle.forgive({ address });
        signIn(request, reply, await sessions.start(user, origin(request)));
        return { to: '/', flash: `Welcome to Kiln, ${user.handle}!` };
      },
      {
        message: (error) => (error.code === 'conflict' ? NAME_TAKEN : error.message),
        render: async (message, _status, error) => {
          // A clash stays counted against the client: it is what probing for names looks like.
          if (error.code !== 'conflict') await loginThrottle.forgive({ address });
          return refuse(422, message);
        },
      },
    );
  });

  server.get('/login', async (request, reply) => {
    const redirect = safeRedirectTarget(formValue(request.query, 'redirect'));
    if (request.viewer.kind === 'user') return reply.redirect(redirect, 303);
    const widget = widgetFor(reply, await loginWantsCaptcha({ address: clientAddress(request) }));
    return pages.send(request, reply, {
      title: 'Sign in',
      body: (context) => loginForm(context, { login: '', redirect }, { captcha: widget }),
    });
  });

  server.post('/login', async (request, reply) => {
    assertCsrf(request);
    const login = field(request.body, 'login', 300).trim();
    const redirect = safeRedirectTarget(field(request.body, 'redirect', 4096));
    const subject = { login, address: clientAddress(request) };
    const refuse = async (status: number, error: string) => {
      const widget = widgetFor(reply, await loginWantsCaptcha(subject));
      return pages.send(request, reply, {
        status,
        title: 'Sign in',
        body: (context) => loginForm(context, { login, redirect }, { error, captcha: widget }),
      });
    };
    if (captcha !== null && (await loginWantsCaptcha(subject))) {
      const failure = await captcha.verify(request, subject.address);
      if (failure !== undefined) return refuse(403, captchaFailureMessage(failure));
    }
    const verdict = await loginThrottle.attempt(subject);
    if (!verdict.allowed) {
      reply.header('Retry-After', String(verdict.retryAfterSeconds));
      return refuse(
        429,
        `Too many failed sign-ins. Please try again in ${waitInWords(verdict.retryAfterSeconds)}.`,
      );
    }
    const user = await users.authenticate(login, field(request.body, 'password', 2000));
    if (!user) return refuse(401, WRONG);
    await loginThrottle.succeeded(subject);
    signIn(request, reply, await sessions.start(user, origin(request)));
    return reply.redirect(redirect, 303);
  });

  server.post('/logout', async (request, reply) => {
    assertCsrf(request);
    const secret = request.cookies[SESSION_COOKIE];
    if (secret) await sessions.end(secret);
    clearSessionCookie(reply);
    rotateCsrf(request, reply, undefined, pages.secure(request));
    return reply.redirect('/', 303);
  });
}
