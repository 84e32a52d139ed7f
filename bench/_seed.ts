/**
 * Shared by the benches (not a bench itself: bench/run.ts skips `_*.ts`): the person a bench
 * acts as, made through the domain services as every other account is, with an all-scope token.
 * Only types are imported, so a bench that loads Kiln late (to measure a bare process first)
 * still does.
 */
import type { DomainServices } from '../src/domain/services.ts';
import type { User } from '../src/domain/users/user.types.ts';

/** The password every bench person gets; benches sign in with it where they need a session. */
export const BENCH_PASSWORD = 'correct horse battery';

/** A bench's person: the account, its password and an all-scope token for REST and git. */
export type BenchPerson = {
  readonly user: User;
  readonly password: string;
  readonly token: string;
};

/**
 * Makes the bench's person, `bench` unless the bench needs another handle (a search bench names
 * what it searches for, federated instances name their people), with an all-scope token.
 */
export async function seedBenchPerson(
  services: Pick<DomainServices, 'users' | 'tokens'>,
  options: { readonly handle?: string; readonly fullName?: string } = {},
): Promise<BenchPerson> {
  const handle = options.handle ?? 'bench';
  const user = await services.users.createUser({
    handle,
    email: `${handle}@example.test`,
    password: BENCH_PASSWORD,
    fullName: options.fullName ?? '',
  });
  const { token } = await services.tokens.create(user, 'bench');
  return { user, password: BENCH_PASSWORD, token };
}
