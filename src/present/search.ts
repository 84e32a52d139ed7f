import type { Repository } from '../domain/repos/repo.types.ts';
import type { Account } from '../domain/users/user.types.ts';
import { foldId } from '../lib/ids.ts';

/** The person view of search results: an identity without the email (SPEC.md → Person view). */
export type SearchPerson = {
  readonly id: number;
  readonly login: string;
  readonly username: string;
  readonly full_name: string;
};

/** The shallow repository projection of search results: no permissions, no URLs, no parent. */
export type SearchRepository = {
  readonly owner: string;
  readonly name: string;
  readonly full_name: string;
  readonly description: string;
  readonly private: boolean;
  readonly updated_at: string;
};

/** A person as search shows them to anyone, signed in or not. */
export function toSearchPerson(account: Account): SearchPerson {
  return {
    id: foldId(account.id),
    login: account.handle,
    username: account.handle,
    full_name: account.fullName,
  };
}

/** A repository as a search result; the caller has already checked it may be seen. */
export function toSearchRepository(repo: Repository): SearchRepository {
  return {
    owner: repo.owner.handle,
    name: repo.name,
    full_name: `${repo.owner.handle}/${repo.name}`,
    description: repo.description,
    private: repo.private,
    updated_at: repo.updatedAt.toISOString(),
  };
}
