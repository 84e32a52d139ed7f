/**
 * A JavaScript action doing what `actions/checkout` does for a Kiln repository, published by an
 * administrator under the action owner `actions` and served by Kiln's actions source as
 * `uses: actions/checkout-like@v1`: it runs on the runner's Node with its inputs defaulting to
 * the task's `github.repository` and `github.token`, fetches the pushed commit of a private
 * repository with the task token in an `Authorization` header, leaves the credentials for later
 * steps and removes them in its post step, as actions/checkout does. An ordinary user's action
 * runs only when the workflow names it by its full URL: named without a host it is not found.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo } from '../git/fixtures.ts';
import { ACTION_YML, INDEX_JS } from './checkout-like.ts';
import { KilnWorld } from './kiln-world.ts';

const ECHO_YML = `name: echo-like
runs:
  using: composite
  steps:
    - run: echo "echo-like ran from its full URL"
      shell: bash
`;

let world: KilnWorld;

beforeAll(async () => {
  world = await KilnWorld.start();
});
afterAll(async () => {
  await world?.close();
});

describe('a checkout action against Kiln', () => {
  it('checks out the pushed commit of a private repository with the task token', async () => {
    const { user, token, full } = await world.repo();
    const actions = await world.actionsOwner();
    const admin = await world.kiln.app.services.users.getUser('actions-admin');
    await makeRepo(world.kiln, admin, { name: 'checkout-like', orgName: actions.org });
    await world.push(
      `${actions.org}/checkout-like`,
      actions.token,
      { 'action.yml': ACTION_YML, 'index.js': INDEX_JS },
      ['main:refs/tags/v1'],
    );
    await makeRepo(world.kiln, user, { name: 'echo-like' });
    await world.push(`${user.handle}/echo-like`, token, { 'action.yml': ECHO_YML }, [
      'main:refs/tags/v1',
    ]);
    const { name: privateName } = await makeRepo(world.kiln, user, { private: true });
    const target = `${user.handle}/${privateName}`;
    const workflow = `on: push
jobs:
  build:
    runs-on: kiln-checkout
    steps:
      - uses: actions/checkout-like@v1
      - run: echo "the file says $(cat hello.txt)"
      - run: echo "remote main is $(git ls-remote origin refs/heads/main | cut -f1)"
      - uses: ${world.kiln.url}/${user.handle}/echo-like@v1
      - id: hostless
        uses: ${user.handle}/echo-like@v1
        continue-on-error: true
      - run: echo "host-less outcome \${{ steps.hostless.outcome }}"
`;
    const daemon = world.daemon(await world.register('kiln-checkout'), ['--once']);
    const sha = await world.push(target, token, {
      '.gitea/workflows/ci.yml': workflow,
      'hello.txt': 'checked out by the action',
    });
    expect(full).not.toBe(target);

    const { run, log } = await world.finishedRun(target, token, daemon);
    expect(run.conclusion, log).toBe('success');
    expect(log).toContain(`checked out ${sha}`);
    expect(log).toContain('the file says checked out by the action');
    expect(log).toContain(`remote main is ${sha}`);
    expect(log).toContain('post: credentials removed');
    expect(log).toContain('echo-like ran from its full URL');
    expect(log.match(/echo-like ran/g)).toHaveLength(1);
    expect(log).toContain('host-less outcome failure');
    expect(log).not.toContain(token);
  }, 150_000);
});
