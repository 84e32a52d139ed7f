/** A person or an organisation: both live in one namespace of handles, as in Gitea. */
export type AccountKind = 'user' | 'org';

export type Account = {
  readonly id: string;
  readonly handle: string;
  readonly kind: AccountKind;
  /** Only people have an address; never shown to anyone but themselves. */
  readonly email: string | null;
  readonly fullName: string;
  readonly description: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /**
   * Present (true) on a person made an instance administrator from the admin pages; absent
   * otherwise. Handles in SERVICE_ADMIN_HANDLES are administrators without it (AdminPolicy).
   */
  readonly siteAdmin?: true;
  /**
   * Present (true) on an organisation whose visibility is private: it, and every repository it
   * owns, exist only for its members and the instance's administrators (`ownerVisible` in
   * repo.policy.ts). Absent on people and public organisations.
   */
  readonly private?: true;
};

export type User = Account & { readonly kind: 'user'; readonly email: string };

export function isUser(account: Account): account is User {
  return account.kind === 'user';
}

/** An account made as a person, as one: anything else would be a broken invariant, not input. */
export function asPerson(account: Account): User {
  if (!isUser(account))
    throw new Error(`account ${account.id} was made as a person but is not one`);
  return account;
}

/** A person as the admin pages list them. */
export type PersonRow = { readonly account: Account; readonly disabledAt: Date | null };

/** A new account as the store takes it: names as given, the time as epoch milliseconds. */
export type NewAccount = {
  readonly id: string;
  readonly handle: string;
  readonly kind: Account['kind'];
  readonly email: string | null;
  readonly fullName: string;
  readonly passwordHash: string | null;
  readonly createdAt: number;
};
