import type { User } from '../../domain/users/user.types.ts';
import type { Flash } from './flash.ts';
import { type Html, html } from './html.ts';
import { icon } from './icons.ts';

/** Everything the frame of a page needs to know about the request. */
export type PageContext = {
  readonly user: User | undefined;
  readonly isAdmin: boolean;
  readonly csrf: string;
  readonly flash: Flash | undefined;
  readonly version: string;
  /** The current path and query, for "sign in and come back" links. */
  readonly path: string;
  /** Query typed into the header search box, when on the search page. */
  readonly searchQuery?: string;
};

const FLASH_CLASS: Record<Flash['kind'], string> = {
  success: 'flash-success',
  error: 'flash-error',
  warn: 'flash-warn',
};

function header(context: PageContext): Html {
  const user = context.user;
  const account = user
    ? html`<nav aria-label="Account" class="d-flex flex-items-center">
        <a class="Header-link mr-3" href="/new" title="New repository">${icon('plus')}<span class="sr-only">New repository</span></a>
        <details class="details-overlay details-reset position-relative">
          <summary class="Header-link" aria-haspopup="menu"><img class="avatar mr-1" src="/assets/avatar.svg" width="20" height="20" alt=""> ${user.handle} <span class="dropdown-caret"></span></summary>
          <div class="dropdown-menu dropdown-menu-sw" role="menu" aria-label="Account">
            <div class="dropdown-header">Signed in as <strong>${user.handle}</strong></div>
            <div class="dropdown-divider" role="separator"></div>
            <a class="dropdown-item" role="menuitem" href="/${encodeURIComponent(user.handle)}">Your profile</a>
            <a class="dropdown-item" role="menuitem" href="/new">New repository</a>
            <a class="dropdown-item" role="menuitem" href="/org/create">New organisation</a>
            <div class="dropdown-divider" role="separator"></div>
            <a class="dropdown-item" role="menuitem" href="/settings">Settings</a>
            <a class="dropdown-item" role="menuitem" href="/settings/tokens">Access tokens</a>
            ${context.isAdmin ? html`<a class="dropdown-item" role="menuitem" href="/admin">Site administration</a>` : null}
            <div class="dropdown-divider" role="separator"></div>
            <form method="post" action="/logout" class="dropdown-item p-0">
              <input type="hidden" name="_csrf" value="${context.csrf}">
              <button type="submit" class="btn-link dropdown-item" role="menuitem">Sign out</button>
            </form>
          </div>
        </details>
      </nav>`
    : html`<nav aria-label="Account" class="d-flex flex-items-center">
        <a class="Header-link mr-3" href="/login?redirect=${encodeURIComponent(context.path)}">Sign in</a>
        <a class="btn btn-sm" href="/signup">Sign up</a>
      </nav>`;
  return html`<header class="Header kiln-header" role="banner">
    <div class="Header-item"><a class="Header-link f4 d-flex flex-items-center" href="/" aria-label="Kiln home">${icon('flame', { size: 24 })}<span class="ml-2">Kiln</span></a></div>
    <form role="search" method="get" action="/search" class="Header-item kiln-header-search">
      <label for="header-search" class="sr-only">Search repositories and people</label>
      <input id="header-search" class="form-control input-sm" type="search" name="q" placeholder="Search…" autocomplete="off" value="${context.searchQuery ?? ''}">
    </form>
    <nav class="Header-item Header-item--full" aria-label="Site"><a class="Header-link" href="/explore">Explore</a></nav>
    <div class="Header-item">${account}</div>
  </header>`;
}

/** A whole HTML document in the site frame. */
export function layout(context: PageContext, page: { title: string; body: Html }): Html {
  const flash = context.flash
    ? html`<div class="flash ${FLASH_CLASS[context.flash.kind]} mb-3" role="${context.flash.kind === 'error' ? 'alert' : 'status'}">${context.flash.message}</div>`
    : null;
  return html`<!DOCTYPE html>
<html lang="en" data-color-mode="light" data-light-theme="light">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${page.title} · Kiln</title>
  <meta name="color-scheme" content="light">
  <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/assets/primer.css">
  <link rel="stylesheet" href="/assets/highlight.css">
  <link rel="stylesheet" href="/assets/kiln.css">
  <script src="/assets/kiln.js" defer></script>
</head>
<body>
  <a class="sr-only kiln-skip" href="#main">Skip to content</a>
  ${header(context)}
  <main id="main" class="container-lg px-3 py-4">
    ${flash}
    ${page.body}
  </main>
  <footer class="container-lg px-3 color-fg-muted f6" role="contentinfo">
    <div class="border-top py-4 d-flex flex-wrap kiln-gap">
      <span>${icon('flame')} Kiln ${context.version}</span>
      <nav aria-label="Footer" class="d-flex flex-wrap kiln-gap"><a href="/explore">Explore</a><span aria-hidden="true">·</span><a href="/api/swagger">API</a></nav>
    </div>
  </footer>
</body>
</html>`;
}
