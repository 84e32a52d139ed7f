import { Conflict, NotFound } from '../errors.ts';
import { assertCiValue, ciName, storedCiName } from './ci-names.ts';

/** A change to a CI variable: its new value, and its new name when `rename` is given. */
export type CiVariableChange = { readonly value: string; readonly rename?: string };

/** Where one owner's variables live (a repository's or an organisation's). */
export type VariableRows = {
  exists(name: string): Promise<boolean>;
  /** Answers whether there was a variable named `current`. */
  update(current: string, next: { name: string; value: string }): Promise<boolean>;
};

/**
 * Changes a variable by the same rule for repositories and organisations, as Gitea answers:
 * the new name and value are checked as a new variable's are, `Conflict` when the new name is
 * taken, `NotFound` when there is no variable of the old name.
 */
export async function changeCiVariable(
  rows: VariableRows,
  name: string,
  change: CiVariableChange,
): Promise<void> {
  const next = { name: ciName('variable', change.rename || name), value: change.value };
  assertCiValue('variable', change.value);
  const current = storedCiName(name);
  if (next.name !== current && (await rows.exists(next.name))) {
    throw new Conflict('variable name already exists');
  }
  if (!(await rows.update(current, next))) throw new NotFound('variable does not exist');
}
