import type { TObject, TProperties, TString } from 'typebox';
import { Type } from '../../../present/schemas/type.ts';

/** `{owner}/{name}`, the address of a repository in every path under `/repos`. */
const repoAddress = {
  owner: Type.String({ maxLength: 200 }),
  name: Type.String({ maxLength: 200 }),
};

/** The path parameters of a route on one repository: `/repos/{owner}/{name}/…`. */
export const RepoParams = Type.Object(repoAddress);

/**
 * The path parameters of a route on something inside a repository: the repository's address
 * followed by `more` (a pull's `number`, a branch as `*`), in that order, as Gitea lists them.
 */
export function repoParamsWith<More extends TProperties>(
  more: More,
): TObject<{ owner: TString; name: TString } & More> {
  return Type.Object({ ...repoAddress, ...more });
}
