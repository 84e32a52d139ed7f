/**
 * Reusable workflows and token permissions, run by `kiln runner` against a real Kiln: a called
 * workflow gets typed inputs (one read from the caller's needs), the secrets it is handed and
 * only those, and its outputs reach a later job of the caller; a call that loops or nests too
 * deep is refused on the run; a job whose `permissions:` say `contents: read` cannot push with
 * its task token — nor can a workflow it calls, whatever that one asks — and `{}` reaches nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import type { Json } from '../support/http.ts';
import { type Daemon, KilnWorld } from './kiln-world.ts';

const LABEL = 'reusable';
const SECRET = 'reusable-deploy-key-value';

let world: KilnWorld;
let daemon: Daemon;

beforeAll(async () => {
  world = await KilnWorld.start();
  daemon = world.daemon(await world.register(LABEL));
});
afterAll(async () => {
  await world?.close();
});

const MAIN_WORKFLOW = `name: main
on: push
jobs:
  prepare:
    runs-on: ${LABEL}
    outputs:
      tag: \${{ steps.t.outputs.tag }}
    steps:
      - id: t
        run: echo "tag=v-from-prepare" >> "$GITHUB_OUTPUT"
  call:
    name: Build it
    needs: prepare
    uses: ./.gitea/workflows/build.yml
    with:
      target: \${{ needs.prepare.outputs.tag }}
      fast: true
      count: 3
    secrets:
      token: \${{ secrets.DEPLOY_KEY }}
  inherit:
    uses: ./.gitea/workflows/show.yml
    secrets: inherit
  after:
    needs: call
    runs-on: ${LABEL}
    steps:
      - run: echo "artifact is \${{ needs.call.outputs.artifact }} after \${{ needs.call.result }}"
`;

const BUILD_WORKFLOW = `on:
  workflow_call:
    inputs:
      target: {type: string, required: true}
      fast: {type: boolean, default: false}
      count: {type: number}
      flavour: {type: string, default: plain}
    secrets:
      token: {required: true}
    outputs:
      artifact:
        value: \${{ jobs.compile.outputs.file }}
jobs:
  compile:
    runs-on: ${LABEL}
    outputs:
      file: \${{ steps.c.outputs.file }}
    steps:
      - id: c
        run: |
          echo "target=\${{ inputs.target }} fast=\${{ inputs.fast }} count=\${{ inputs.count }} flavour=\${{ inputs.flavour }}"
          echo "token is \${{ secrets.token }}; deploy key is [\${{ secrets.DEPLOY_KEY }}]"
          echo "job is $GITHUB_JOB"
          echo "file=\${{ inputs.target }}.tar" >> "$GITHUB_OUTPUT"
`;

const SHOW_WORKFLOW = `on: workflow_call
jobs:
  show:
    runs-on: ${LABEL}
    steps:
      - run: echo "inherited [\${{ secrets.DEPLOY_KEY }}]"
`;

async function completedRun(full: string, token: string, sha: string): Promise<Json> {
  let run: Json | undefined;
  const done = await eventually(async () => {
    run = await world.latestRun(full, token);
    return run?.head_sha === sha && run.status === 'completed';
  }, 120_000);
  expect(done, `the run did not complete; the runner said: ${daemon.stderr()}`).toBe(true);
  return run as Json;
}

async function jobLogs(full: string, token: string, run: Json): Promise<Map<string, Json>> {
  const { jobs } = JSON.parse((await world.api(full, token, `/actions/runs/${run.id}/jobs`)).text);
  const logs = new Map<string, Json>();
  for (const job of jobs as Json[]) {
    const log = (await world.api(full, token, `/actions/jobs/${job.id}/logs`)).text;
    logs.set(String(job.name), { ...job, log });
  }
  return logs;
}

async function repoIdOf(full: string): Promise<string> {
  const [owner = '', name = ''] = full.split('/');
  const { repo } = await world.kiln.app.services.repos.get(undefined, owner, name);
  return repo.id;
}

describe('reusable workflows', () => {
  it('hand inputs, secrets and outputs across a call, named as the caller and the job', async () => {
    const { token, full } = await world.repo();
    await world.kiln.app.services.ciSecrets.put(
      { repoId: await repoIdOf(full), isRepoAdmin: true },
      'DEPLOY_KEY',
      SECRET,
    );
    const sha = await world.push(full, token, {
      '.gitea/workflows/main.yml': MAIN_WORKFLOW,
      '.gitea/workflows/build.yml': BUILD_WORKFLOW,
      '.gitea/workflows/show.yml': SHOW_WORKFLOW,
    });
    const run = await completedRun(full, token, sha);
    const jobs = await jobLogs(full, token, run);
    expect([...jobs.keys()].sort()).toEqual([
      'Build it / compile',
      'after',
      'inherit / show',
      'prepare',
    ]);
    expect(run.conclusion, [...jobs.values()].map((job) => job.log).join('\n')).toBe('success');
    const compile = String(jobs.get('Build it / compile')?.log);
    expect(compile).toContain('target=v-from-prepare fast=true count=3 flavour=plain');
    // Handed `token` only: the caller's other secrets are not the called workflow's.
    expect(compile).toContain('token is ***; deploy key is []');
    expect(compile).toContain('job is compile');
    expect(compile).not.toContain(SECRET);
    expect(String(jobs.get('inherit / show')?.log)).toContain('inherited [***]');
    expect(String(jobs.get('after')?.log)).toContain(
      'artifact is v-from-prepare.tar after success',
    );
  }, 180_000);

  it('refuses a call cycle and calls nested too deep, saying so on the run', async () => {
    const { token, full } = await world.repo();
    const call = (next: string) =>
      `on: workflow_call\njobs:\n  next:\n    uses: ./.gitea/workflows/${next}\n`;
    await world.push(full, token, {
      '.gitea/workflows/loop.yml': `on: push\njobs:\n  go:\n    uses: ./.gitea/workflows/a.yml\n`,
      '.gitea/workflows/a.yml': call('b.yml'),
      '.gitea/workflows/b.yml': call('a.yml'),
      '.gitea/workflows/deep.yml': `on: push\njobs:\n  go:\n    uses: ./.gitea/workflows/l1.yml\n`,
      '.gitea/workflows/l1.yml': call('l2.yml'),
      '.gitea/workflows/l2.yml': call('l3.yml'),
      '.gitea/workflows/l3.yml': call('l4.yml'),
      '.gitea/workflows/l4.yml': `on: workflow_call\njobs:\n  leaf:\n    runs-on: ${LABEL}\n    steps: [{run: echo}]\n`,
    });
    const repoId = await repoIdOf(full);
    const runs = () =>
      world.kiln.app.database.db
        .selectFrom('workflow_runs')
        .select(['workflow_file', 'error', 'status'])
        .where('repo_id', '=', repoId)
        .orderBy('workflow_file')
        .execute();
    expect(await eventually(async () => (await runs()).length === 2)).toBe(true);
    const errors = await runs();
    expect(errors).toEqual([
      {
        workflow_file: 'deep.yml',
        status: 'FAILURE',
        error:
          '.gitea/workflows/deep.yml: job "next": workflow calls nest deeper than 4 levels ' +
          '(.gitea/workflows/deep.yml → .gitea/workflows/l1.yml → .gitea/workflows/l2.yml → ' +
          '.gitea/workflows/l3.yml → .gitea/workflows/l4.yml)',
      },
      {
        workflow_file: 'loop.yml',
        status: 'FAILURE',
        error:
          '.gitea/workflows/loop.yml: job "next": workflow call cycle: .gitea/workflows/loop.yml → ' +
          '.gitea/workflows/a.yml → .gitea/workflows/b.yml → .gitea/workflows/a.yml',
      },
    ]);
  });
});

const TRY = (who: string) => `
          host="\${GITHUB_SERVER_URL#http://}"
          git clone -q "http://ci:\${{ secrets.GITHUB_TOKEN }}@$host/$GITHUB_REPOSITORY.git" src-${who}
          cd src-${who}
          git -c user.name=ci -c user.email=ci@example.com commit -q --allow-empty -m ${who}
          if git push -q origin HEAD:refs/heads/from-${who} 2>/dev/null; then echo "${who} pushed"; else echo "${who} push refused"; fi
          api="$GITHUB_SERVER_URL/api/v1/repos/$GITHUB_REPOSITORY"
          auth="authorization: token \${{ secrets.GITHUB_TOKEN }}"
          code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "$auth" -H 'content-type: application/json' -d '{"tag_name":"${who}","target_commitish":"main","name":"${who}"}' "$api/releases")
          echo "${who} release $code"
          code=$(curl -s -o /dev/null -w '%{http_code}' -H "$auth" "$api/labels")
          echo "${who} labels $code"`;

const PERMISSIONS_WORKFLOW = `on: push
permissions:
  contents: read
jobs:
  reader:
    runs-on: ${LABEL}
    steps:
      - run: |${TRY('reader')}
  writer:
    runs-on: ${LABEL}
    permissions:
      contents: write
      issues: write
    steps:
      - run: |${TRY('writer')}
  nothing:
    runs-on: ${LABEL}
    permissions: {}
    steps:
      - run: |
          code=$(curl -s -o /dev/null -w '%{http_code}' -H "authorization: token \${{ secrets.GITHUB_TOKEN }}" "$GITHUB_SERVER_URL/api/v1/repos/$GITHUB_REPOSITORY")
          echo "nothing read $code"
  called:
    permissions:
      contents: read
    uses: ./.gitea/workflows/pusher.yml
`;

const PUSHER_WORKFLOW = `on: workflow_call
jobs:
  pusher:
    runs-on: ${LABEL}
    permissions:
      contents: write
      issues: write
    steps:
      - run: |${TRY('pusher')}
`;

describe('permissions', () => {
  it('narrow what the task token may push and call, through workflow calls too', async () => {
    const { token, full } = await world.repo();
    const sha = await world.push(full, token, {
      '.gitea/workflows/perm.yml': PERMISSIONS_WORKFLOW,
      '.gitea/workflows/pusher.yml': PUSHER_WORKFLOW,
    });
    const run = await completedRun(full, token, sha);
    const jobs = await jobLogs(full, token, run);
    const log = (name: string) => String(jobs.get(name)?.log);
    expect(log('writer')).toContain('writer pushed');
    expect(log('writer')).toContain('writer release 201');
    expect(log('writer')).toContain('writer labels 200');
    expect(log('reader')).toContain('reader push refused');
    expect(log('reader')).toContain('reader release 403');
    // `contents: read` alone leaves `issues` at none: labels are issue-scoped.
    expect(log('reader')).toContain('reader labels 403');
    expect(log('called / pusher')).toContain('pusher push refused');
    expect(log('called / pusher')).toContain('pusher release 403');
    expect(log('called / pusher')).toContain('pusher labels 403');
    expect(log('nothing')).toMatch(/nothing read (403|404)/);
    const branches = JSON.parse((await world.api(full, token, '/branches')).text) as Json[];
    expect(branches.map((branch) => branch.name).sort()).toEqual(['from-writer', 'main']);
  }, 180_000);
});
