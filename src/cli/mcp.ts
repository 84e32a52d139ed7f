import { startedUp } from '../start-up.js';
import { type Command, stringValue } from './command.ts';

/** `mcp`. Its stdout is the protocol: nothing else may be written there. */
export const mcpCommands: readonly Command[] = [
  {
    name: 'mcp',
    summary: 'Serve the MCP tools on stdio as the owner of a personal access token',
    options: {
      'token-file': { type: 'string', value: 'PATH', help: 'read the token from this file' },
    },
    notes: ['Without --token-file the token comes from KILN_TOKEN (docs/mcp.md).'],
    run: async ({ values, config }) => {
      // Loaded only for this command: the MCP SDK would otherwise weigh on every `serve`.
      const [{ runMcp }, { createApp }] = await Promise.all([
        import('../mcp/mcp-command.ts'),
        import('../app.ts'),
      ]);
      return runMcp(config(), {
        open: createApp,
        tokenFile: stringValue(values, 'token-file'),
        env: process.env,
        onReady: startedUp,
      });
    },
  },
];
