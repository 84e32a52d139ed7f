/**
 * CI gating merges: a protected branch with `enable_status_check` and Gitea's glob patterns in
 * `status_check_contexts` takes a merge, through the API and the pull page, only once every
 * required check (`{workflow} / {job} ({event})`, from Kiln's own runs of the head commit) has
 * succeeded. A check that has not reported is pending, a posted commit status opens nothing,
 * and the page shows each required check with its state and a link to its job.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { ReplayRunner } from '../actions/replay-runner.ts';
import { eventually } from '../support/eventually.ts';
import { apiCall } from '../support/http.ts';
import { useWorld, type World } from '../support/world.ts';
import { commitTo, page, signedIn } from '../web/fixtures.ts';

const REFUSAL = 'not allowed to merge [reason: Not all required status checks successful]';
const workflow = (name: string, runsOn: string) => `name: ${name}
on:
  pull_request:
    branches: [main]
jobs:
  test:
    runs-on: ${runsOn}
    steps: [{run: make test}]
`;

let world: World<'owner', 'gated'>;
let root: string;

useWorld(
  {
    env: { SERVICE_PROTECT_ENABLED: 'false' },
    people: ['owner'],
    repos: [{ owner: 'owner', name: 'gated' }],
  },
  async (started) => {
    world = started;
    root = await commitTo(world.kiln, world.repos.gated, {
      branch: 'main',
      files: {
        '.gitea/workflows/ci.yml': workflow('CI', 'gate-box'),
        // Never picked up: a check the rule does not name stays pending without holding merges.
        '.gitea/workflows/lint.yml': workflow('Lint', 'nobody-box'),
      },
    });
  },
);

const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
  apiCall(world.kiln.url, `/repos/${world.people.owner.user.handle}/gated${path}`, {
    token: world.people.owner.token,
    ...init,
  });

async function openPull(branch: string): Promise<{ number: number; sha: string }> {
  const { kiln, repos, people } = world;
  const sha = await commitTo(kiln, repos.gated, {
    branch,
    parents: [root],
    files: { [`${branch}.txt`]: branch },
    message: `Change on ${branch}`,
  });
  const owner = people.owner.user;
  const { pull } = await kiln.app.services.pulls.create(owner, owner.handle, 'gated', {
    title: branch,
    head: branch,
    base: 'main',
  });
  return { number: pull.number, sha };
}

/** The run of the `CI` workflow for a commit, once it exists. */
async function ciRunOf(sha: string): Promise<number> {
  const find = () =>
    world.kiln.app.database.db
      .selectFrom('workflow_runs')
      .select('number')
      .where('repo_id', '=', world.repos.gated.id)
      .where('sha', '=', sha)
      .where('workflow_name', '=', 'CI')
      .executeTakeFirst();
  expect(await eventually(async () => (await find()) !== undefined)).toBe(true);
  return Number((await find())?.number);
}

const mergeButtonDisabled = /<button[^>]*data-merge-button[^>]*disabled/;

describe('required checks', () => {
  it('hold a merge until the required check succeeds, through the API and the page', async () => {
    const { kiln, people } = world;
    const created = await api('/branch_protections', {
      method: 'POST',
      body: { rule_name: 'main', enable_status_check: true, status_check_contexts: ['CI / *'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      rule_name: 'main',
      enable_status_check: true,
      status_check_contexts: ['CI / *'],
    });
    const branch = await api('/branches/main');
    expect(branch.body).toMatchObject({
      protected: true,
      enable_status_check: true,
      status_check_contexts: ['CI / *'],
    });
    const runner = await ReplayRunner.register(kiln, { labels: ['gate-box'] });
    const { number, sha } = await openPull('feature');
    const run = await ciRunOf(sha);

    // Not reported yet: pending, and a status posted through the API does not count.
    const merge = () => api(`/pulls/${number}/merge`, { method: 'POST', body: { Do: 'merge' } });
    const early = await merge();
    expect(early.status).toBe(405);
    expect(early.body.message).toBe(REFUSAL);
    const posted = await api(`/statuses/${sha}`, {
      method: 'POST',
      body: { state: 'success', context: 'CI / test (pull_request)' },
    });
    expect(posted.status).toBe(201);
    expect((await merge()).status).toBe(405);

    const browser = await signedIn(kiln, people.owner.user.handle, people.owner.password);
    const pullPath = `/repos/${people.owner.user.handle}/gated/pulls/${number}`;
    const waiting = await page(browser, pullPath);
    expect(waiting).toContain('Merging waits until every required check has succeeded');
    expect(waiting).toMatch(/data-required-check="CI \/ \*" data-check-state="pending"/);
    expect(waiting).toContain(`/actions/runs/${run}/jobs/`);
    expect(waiting).toContain('CI / test (pull_request)');
    expect(waiting).not.toContain('Lint / test');
    expect(waiting).toMatch(mergeButtonDisabled);

    // Failed: still refused, by the form too.
    await runner.run(await runner.next(), { steps: [{ lines: ['boom'], result: Result.FAILURE }] });
    expect((await merge()).status).toBe(405);
    const failing = await page(browser, pullPath);
    expect(failing).toMatch(/data-required-check="CI \/ \*" data-check-state="failure"/);
    expect(failing).toMatch(mergeButtonDisabled);
    expect((await browser.post(`${pullPath}/merge`, { confirm: 'yes' })).status).toBe(303);
    expect(await page(browser, pullPath)).toContain(REFUSAL);
    expect((await api(`/pulls/${number}`)).body.merged).toBe(false);

    // Run again, passing: the newest verdict opens the gate, and the page's form merges.
    expect((await api(`/actions/runs/${run}/rerun`, { method: 'POST' })).status).toBeLessThan(300);
    await runner.run(await runner.next(), { steps: [{ lines: ['ok'], result: Result.SUCCESS }] });
    const passing = await page(browser, pullPath);
    expect(passing).toContain('All required checks have succeeded');
    expect(passing).toMatch(/data-required-check="CI \/ \*" data-check-state="success"/);
    expect(passing).not.toMatch(mergeButtonDisabled);
    expect((await browser.post(`${pullPath}/merge`, { confirm: 'yes' })).status).toBe(303);
    expect((await api(`/pulls/${number}`)).body.merged).toBe(true);
  });

  it('name a check that never reports as pending, and let PATCH change the rule', async () => {
    const { number, sha } = await openPull('second');
    await ciRunOf(sha);
    const merge = () => api(`/pulls/${number}/merge`, { method: 'POST', body: { Do: 'merge' } });
    const edited = await api('/branch_protections/main', {
      method: 'PATCH',
      body: { status_check_contexts: ['Lint / test (pull_request)', 'CI / test (*)'] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      enable_status_check: true,
      status_check_contexts: ['Lint / test (pull_request)', 'CI / test (*)'],
    });
    const runner = await ReplayRunner.register(world.kiln, { labels: ['gate-box'] });
    await runner.run(await runner.next(), { steps: [{ lines: ['ok'], result: Result.SUCCESS }] });
    // CI passed, but Lint's job never ran: pending, so still refused.
    expect((await merge()).status).toBe(405);
    const off = await api('/branch_protections/main', {
      method: 'PATCH',
      body: { enable_status_check: false },
    });
    expect(off.body.enable_status_check).toBe(false);
    expect(off.body.status_check_contexts).toHaveLength(2);
    expect((await merge()).status).toBe(200);
  });

  it('refuse patterns that do not compile with 422 and keep the rule as it was', async () => {
    for (const pattern of ['CI / [test', 'CI / {a,b', 'x\\']) {
      const refused = await api('/branch_protections/main', {
        method: 'PATCH',
        body: { status_check_contexts: [pattern] },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.message).toContain('not a valid pattern');
      const create = await api('/branch_protections', {
        method: 'POST',
        body: { rule_name: 'other', status_check_contexts: [pattern] },
      });
      expect(create.status).toBe(422);
    }
    const kept = await api('/branch_protections/main');
    expect(kept.body.status_check_contexts).toEqual([
      'Lint / test (pull_request)',
      'CI / test (*)',
    ]);
    expect((await api('/branch_protections/other')).status).toBe(404);
  });

  it('are set on the settings page, one pattern a line', async () => {
    const { kiln, people } = world;
    const browser = await signedIn(kiln, people.owner.user.handle, people.owner.password);
    const settings = `/repos/${people.owner.user.handle}/gated/settings`;
    const saved = await browser.post(`${settings}/branches/checks`, {
      branch: 'main',
      enable_status_check: 'on',
      status_check_contexts: 'CI / test (*)\r\n\r\n  Lint / *  \r\n',
    });
    expect(saved.status).toBe(303);
    const rule = (await api('/branch_protections/main')).body;
    expect(rule).toMatchObject({
      enable_status_check: true,
      status_check_contexts: ['CI / test (*)', 'Lint / *'],
    });
    const shown = await page(browser, settings);
    expect(shown).toContain('Required checks (2)');
    expect(shown).toContain('CI / test (*)\nLint / *</textarea>');

    await browser.post(`${settings}/branches/checks`, {
      branch: 'main',
      status_check_contexts: 'CI / {open',
    });
    expect(await page(browser, settings)).toContain('not a valid pattern');
    expect((await api('/branch_protections/main')).body).toEqual(rule);
    await browser.post(`${settings}/branches/checks`, {
      branch: 'main',
      status_check_contexts: '',
    });
    expect((await api('/branch_protections/main')).body).toMatchObject({
      enable_status_check: false,
      status_check_contexts: [],
    });
  });

  it('match check names by generated patterns as Gitea reads its globs', async () => {
    const { kiln, people } = world;
    const { number, sha } = await openPull('third');
    await ciRunOf(sha);
    const runner = await ReplayRunner.register(kiln, { labels: ['gate-box'] });
    await runner.run(await runner.next(), { steps: [{ lines: ['ok'], result: Result.SUCCESS }] });
    const passed = 'CI / test (pull_request)';
    const waiting = 'Lint / test (pull_request)';
    const browser = await signedIn(kiln, people.owner.user.handle, people.owner.password);
    const pullPath = `/repos/${people.owner.user.handle}/gated/pulls/${number}`;
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(globOverContexts([passed, waiting]), async ({ glob, regex }) => {
        const set = await api('/branch_protections/main', {
          method: 'PATCH',
          body: { enable_status_check: true, status_check_contexts: [glob] },
        });
        expect(set.status).toBe(200);
        // Matching the passed check alone succeeds; matching the waiting one, or none, waits.
        const expected = regex.test(passed) && !regex.test(waiting) ? 'success' : 'pending';
        seen.add(expected);
        const shown = await page(browser, pullPath);
        expect(shown).toContain(`data-required-check="${glob}" data-check-state="${expected}"`);
        expect(shown.includes('All required checks have succeeded')).toBe(expected === 'success');
      }),
      {
        numRuns: 25,
        // Both answers every time, whatever else is generated.
        examples: [
          [{ glob: 'CI / *', regex: /^CI \/ [\s\S]*$/u }],
          [{ glob: '* / test (*)', regex: /^[\s\S]* \/ test \([\s\S]*\)$/u }],
        ],
      },
    );
    expect([...seen].sort()).toEqual(['pending', 'success']);
  });
});

/**
 * Patterns over the given contexts with an independent reading of each as a regular
 * expression: a context with parts replaced by `*`, `?`, sets and alternatives, or a free mix.
 */
function globOverContexts(contexts: readonly string[]) {
  type Part = { glob: string; regex: string };
  const literal = (text: string): Part => ({
    glob: text,
    regex: text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'),
  });
  const special = fc.constantFrom<Part>(
    { glob: '*', regex: '[\\s\\S]*' },
    { glob: '?', regex: '[\\s\\S]' },
    { glob: '[CL]', regex: '[CL]' },
    { glob: '[!L]', regex: '[^L]' },
    { glob: '{CI,Lint}', regex: '(?:CI|Lint)' },
    { glob: '(pull_request)', regex: '\\(pull_request\\)' },
  );
  const words = fc.constantFrom('CI', 'Lint', ' / ', 'test', ' ', 'push').map(literal);
  const mix = fc.array(fc.oneof(special, words), { minLength: 1, maxLength: 6 });
  const mutated = fc
    .tuple(fc.constantFrom(...contexts), fc.nat(), fc.nat({ max: 6 }), special)
    .map(([context, at, length, part]): Part[] => {
      const start = at % context.length;
      return [
        literal(context.slice(0, start)),
        part,
        literal(context.slice(Math.min(context.length, start + length))),
      ];
    });
  return (
    fc
      .oneof(mix, mutated)
      .map((parts) => ({
        glob: parts.map((p) => p.glob).join(''),
        regex: new RegExp(`^(?:${parts.map((p) => p.regex).join('')})$`, 'u'),
      }))
      // A blank pattern is dropped when the rule is saved, as Gitea drops blank lines.
      .filter(({ glob }) => glob.trim() !== '')
  );
}
