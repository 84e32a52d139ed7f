/**
 * `uses: actions/checkout@v4` mirrored into Kiln's `actions` organisation as an operator does it,
 * run by a `kiln runner daemon`: the released `action.yml` (test/fixtures/actions/checkout-v4.yml)
 * with, in place of its bundled code, the checkout of checkout-like.ts that, like the real one,
 * hands a non-empty `filter` input to `git fetch --filter=…`. Its `filter` default is `null`,
 * which must reach the action as nothing, or git refuses the fetch.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo } from '../git/fixtures.ts';
import { INDEX_JS } from './checkout-like.ts';
import { KilnWorld } from './kiln-world.ts';

const FETCH = "git('fetch', '-q', ";
/** checkout-like's program, passing the `filter` input on to git as actions/checkout does. */
const CHECKOUT_JS = INDEX_JS.replace(
  FETCH,
  `${FETCH}...(env.INPUT_FILTER ? ['--filter=' + env.INPUT_FILTER] : []), `,
);

let world: KilnWorld;

beforeAll(async () => {
  world = await KilnWorld.start();
});
afterAll(async () => {
  await world?.close();
});

describe('the released actions/checkout@v4 metadata on kiln runner', () => {
  it('checks out a private repository with the defaults of its action.yml', async () => {
    expect(CHECKOUT_JS).not.toBe(INDEX_JS);
    const { user, token, full } = await world.repo();
    const actions = await world.actionsOwner();
    const admin = await world.kiln.app.services.users.getUser('actions-admin');
    await makeRepo(world.kiln, admin, { name: 'checkout', orgName: actions.org });
    const yml = await readFile(
      join(import.meta.dirname, '../fixtures/actions/checkout-v4.yml'),
      'utf8',
    );
    await world.push(
      `${actions.org}/checkout`,
      actions.token,
      { 'action.yml': yml, 'dist/index.js': CHECKOUT_JS },
      ['main:refs/tags/v4'],
    );
    const { name } = await makeRepo(world.kiln, user, { private: true });
    const target = `${user.handle}/${name}`;
    expect(target).not.toBe(full);
    const workflow = `on: push
jobs:
  build:
    runs-on: kiln-released
    steps:
      - uses: actions/checkout@v4
      - run: echo "the file says $(cat hello.txt)"
`;
    const daemon = world.daemon(await world.register('kiln-released'), ['--once']);
    const sha = await world.push(target, token, {
      '.gitea/workflows/ci.yml': workflow,
      'hello.txt': 'checked out by checkout@v4',
    });
    const { run, log } = await world.finishedRun(target, token, daemon);
    expect(run.conclusion, log).toBe('success');
    expect(log).toContain(`checked out ${sha}`);
    expect(log).toContain('the file says checked out by checkout@v4');
    expect(log).toContain('post: credentials removed');
    expect(log).not.toContain('filter-spec');
  }, 150_000);
});
