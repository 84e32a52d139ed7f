/**
 * A JavaScript action doing what `actions/checkout` does for a Kiln repository, to be published
 * as `owner/checkout-like@v1`: its inputs default to the task's `github.repository` and
 * `github.token`.
 */
export const ACTION_YML = `name: checkout-like
description: fetches the workflow's commit into the workspace
inputs:
  repository:
    default: \${{ github.repository }}
  token:
    default: \${{ github.token }}
  fetch-depth:
    default: '1'
runs:
  using: node20
  main: index.js
  post: index.js
`;

/** What actions/checkout does for a plain checkout, without its toolkit: init, the task token as
// an authorization header kept in the repository's config (persist-credentials), a shallow fetch
// of the ref, a detached checkout of the commit; its post step (told apart by the state it saved,
// as @actions/core's saveState does) removes the header again. */
export const INDEX_JS = `const { appendFileSync } = require('node:fs');
const { execFileSync } = require('node:child_process');
const env = process.env;
const workspace = env.GITHUB_WORKSPACE;
const git = (...args) => execFileSync('git', args, { cwd: workspace, encoding: 'utf8' }).trim();
const header = 'http.' + env.GITHUB_SERVER_URL + '/.extraheader';
if (env.STATE_isPost === 'true') {
  git('config', '--local', '--unset-all', header);
  console.log('post: credentials removed');
  process.exit(0);
}
appendFileSync(env.GITHUB_STATE, 'isPost=true\\n');
const basic = Buffer.from('x-access-token:' + env.INPUT_TOKEN).toString('base64');
console.log('::add-mask::' + basic);
git('init', '-q', '.');
git('remote', 'add', 'origin', env.GITHUB_SERVER_URL + '/' + env.INPUT_REPOSITORY);
git('config', '--local', header, 'AUTHORIZATION: basic ' + basic);
git('fetch', '-q', '--depth=' + env['INPUT_FETCH-DEPTH'], 'origin',
  '+' + env.GITHUB_REF + ':refs/remotes/origin/checked-out');
git('checkout', '-q', '--detach', env.GITHUB_SHA);
console.log('checked out ' + git('rev-parse', 'HEAD'));
`;
