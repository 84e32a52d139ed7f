import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';

function errorBox(message: string | undefined): Html | null {
  return message ? html`<div class="flash flash-error mb-3" role="alert">${message}</div>` : null;
}

/** The sign-up form; `captcha` is the widget when the form asks for it. */
export function signupForm(
  context: PageContext,
  values: { username: string; email: string },
  extra: { error?: string | undefined; captcha?: Html | null } = {},
): Html {
  return html`<div class="kiln-narrow">
    <h1 class="h2 mb-3">Create your account</h1>
    ${errorBox(extra.error)}
    <form method="post" action="/signup" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group"><div class="form-group-header"><label for="username">Username</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="username" name="username" required maxlength="40" autocomplete="username" value="${values.username}"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="email">Email</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="email" name="email" type="email" required autocomplete="email" value="${values.email}"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="password">Password</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="password" name="password" type="password" required minlength="8" autocomplete="new-password"></div></div>
      ${extra.captcha ?? null}
      <button class="btn btn-primary btn-block" type="submit">Sign up</button>
    </form>
    <p class="mt-3 text-center">Already have an account? <a href="/login">Sign in</a></p>
  </div>`;
}

/** The sign-in form; `captcha` is the widget once failures made the form ask for it. */
export function loginForm(
  context: PageContext,
  values: { login: string; redirect: string },
  extra: { error?: string | undefined; captcha?: Html | null } = {},
): Html {
  return html`<div class="kiln-narrow">
    <h1 class="h2 mb-3">Sign in to Kiln</h1>
    ${errorBox(extra.error)}
    <form method="post" action="/login" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <input type="hidden" name="redirect" value="${values.redirect}">
      <div class="form-group"><div class="form-group-header"><label for="login">Username or email</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="login" name="login" required autocomplete="username" value="${values.login}"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="password">Password</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="password" name="password" type="password" required autocomplete="current-password"></div></div>
      ${extra.captcha ?? null}
      <button class="btn btn-primary btn-block" type="submit">Sign in</button>
    </form>
    <p class="mt-3 text-center">New here? <a href="/signup">Create an account</a></p>
  </div>`;
}

/** What /signup shows when sign-up is switched off. */
export function signupClosed(): Html {
  return html`<div class="blankslate"><h1 class="h2">Sign-up is closed</h1><p>Ask an administrator for an account.</p></div>`;
}

/** "in 1 minute", "in 45 seconds": how long a lock still lasts. */
export function waitInWords(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}
