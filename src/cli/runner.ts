import type { Command } from './command.ts';

/**
 * `runner register` and `runner daemon`, listed here for `kiln --help`: `kiln runner …` is handed
 * whole to the built-in runner's own command line (src/runner/cli.ts) before these are looked at.
 */
export const runnerCommands: readonly Command[] = [
  {
    name: 'runner register',
    summary: 'Register this host as a CI runner with a Kiln, Gitea or Forgejo server',
    options: {},
    notes: ['See `kiln runner --help` and docs/runners.md ("The built-in runner").'],
    run: async () => {},
  },
  {
    name: 'runner daemon',
    summary: 'Run CI jobs on this host for the server it is registered with',
    options: {},
    notes: ['See `kiln runner --help` and docs/runners.md ("The built-in runner").'],
    run: async () => {},
  },
];
