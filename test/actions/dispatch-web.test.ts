/**
 * Starting a `workflow_dispatch` workflow from the Actions page: a writer is offered a form per
 * such workflow (branch and declared inputs, defaults filled in), and posting it starts a run
 * whose job, handed to a runner client replaying act_runner's calls, carries the inputs. Readers
 * are not offered the form and cannot post it. Plain HTTP, no JavaScript needed.
 */
import { describe, expect, it } from 'vitest';
import type { GitClient } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { page, signedIn } from '../web/fixtures.ts';
import { pushedRepoWithReader } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

const WORKFLOW = `on:
  workflow_dispatch:
    inputs:
      target: {required: true}
      level: {default: info}
jobs:
  deploy:
    runs-on: dispatch-box
    steps: [{run: deploy}]
`;

let kiln: TestServer;
let git: GitClient;

useWorld({ env: { SERVICE_PROTECT_ENABLED: 'false' } }, (world) => {
  ({ kiln, git } = world);
});

describe('running a workflow from the Actions page', () => {
  it('offers writers a form whose inputs reach the job, and readers nothing', async () => {
    const {
      owner: made,
      reader,
      name,
    } = await pushedRepoWithReader(kiln, git, {
      '.gitea/workflows/deploy.yml': WORKFLOW,
      '.gitea/workflows/push.yml':
        'on: push\njobs:\n  x:\n    runs-on: other\n    steps: [{run: x}]\n',
    });
    const { user: owner, password } = made;
    const runner = await ReplayRunner.register(kiln, { labels: ['dispatch-box'] });
    const actions = `/repos/${owner.handle}/${name}/actions`;

    const writer = await signedIn(kiln, owner.handle, password);
    const offered = await page(writer, actions);
    expect(offered).toContain(`action="${actions}/workflows/deploy.yml/dispatch"`);
    expect(offered).not.toContain(`${actions}/workflows/push.yml/dispatch`);
    expect(offered).toMatch(/name="input\.level" value="info"/);

    const readerBrowser = await signedIn(kiln, reader.user.handle, reader.password);
    expect(await page(readerBrowser, actions)).not.toContain('/dispatch"');
    const refused = await readerBrowser.post(`${actions}/workflows/deploy.yml/dispatch`, {
      ref: 'main',
      'input.target': 'prod',
    });
    expect(refused.status).toBe(403);

    const started = await writer.post(`${actions}/workflows/deploy.yml/dispatch`, {
      ref: 'main',
      'input.target': 'staging',
      'input.level': 'debug',
    });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toMatch(new RegExp(`${actions}/runs/\\d+$`));
    const task = await runner.next();
    const context = task.context as { event_name: string; event: { inputs: unknown } };
    expect(context.event_name).toBe('workflow_dispatch');
    expect(context.event.inputs).toEqual({ target: 'staging', level: 'debug' });
  });
});
