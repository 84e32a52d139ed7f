import type { SearchPerson, SearchRepository } from '../../../present/search.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';

function day(iso: string): string {
  return iso.slice(0, 10);
}

function repositoryList(repositories: readonly SearchRepository[]): Html {
  if (repositories.length === 0) {
    return html`<div class="Box-body color-fg-muted">No repositories match.</div>`;
  }
  return html`<ul>${repositories.map(
    (repo) => html`<li class="Box-row">
      <a class="f4 text-bold" href="/repos/${repo.owner}/${repo.name}">${repo.owner}/${repo.name}</a>
      ${repo.private ? html`<span class="Label ml-1">Private</span>` : null}
      ${repo.description ? html`<p class="color-fg-muted mb-0">${repo.description}</p>` : null}
      <div class="f6 color-fg-muted">Updated ${day(repo.updated_at)}</div>
    </li>`,
  )}</ul>`;
}

function peopleList(people: readonly SearchPerson[]): Html {
  if (people.length === 0) return html`<div class="Box-body color-fg-muted">No people match.</div>`;
  return html`<ul>${people.map(
    (person) => html`<li class="Box-row d-flex flex-items-center">
      ${icon('person')}
      <a class="ml-2 text-bold" href="/${person.login}">${person.login}</a>
      ${person.full_name ? html`<span class="ml-2 color-fg-muted">${person.full_name}</span>` : null}
    </li>`,
  )}</ul>`;
}

/** The search page: a form, then repositories and people matching the query. */
export function searchPage(input: {
  query: string;
  people: readonly SearchPerson[];
  repositories: readonly SearchRepository[];
}): Html {
  const form = html`<form method="get" action="/search" role="search" class="d-flex mb-4">
    <label for="search-q" class="sr-only">Search</label>
    <input id="search-q" class="form-control flex-auto mr-2" type="search" name="q" value="${input.query}" maxlength="100" placeholder="Repositories and people">
    <button class="btn" type="submit">Search</button>
  </form>`;
  if (input.query === '') {
    return html`<h1 class="h2 mb-3">Search</h1>${form}
      <p class="color-fg-muted">Type part of a repository name, a username or a person's name.</p>`;
  }
  return html`<h1 class="h2 mb-3">Search results for “${input.query}”</h1>${form}
    <div class="Box mb-4">
      <div class="Box-header"><h2 class="Box-title">Repositories</h2></div>
      ${repositoryList(input.repositories)}
    </div>
    <div class="Box">
      <div class="Box-header"><h2 class="Box-title">People</h2></div>
      ${peopleList(input.people)}
    </div>`;
}
