import { NotFound } from '../errors.ts';
import {
  assertRepoCiAdmin,
  type CiSettingKind,
  type RepoCiAccess,
  storedCiName,
} from './ci-names.ts';
import type { CiSettingStore } from './ci-setting.store.ts';

/**
 * Deletes one of a repository's secrets or variables: the same rule for both kinds (admins
 * only; the name is matched as stored, so even one no longer valid can go), and `NotFound`
 * when there is none, as Gitea answers.
 */
export async function deleteRepoCiSetting(
  store: Pick<CiSettingStore, 'deleteSetting'>,
  kind: CiSettingKind,
  access: RepoCiAccess,
  name: string,
): Promise<void> {
  assertRepoCiAdmin(access, kind);
  if (!(await store.deleteSetting(kind, access.repoId, storedCiName(name)))) {
    throw new NotFound(`${kind} does not exist`);
  }
}
