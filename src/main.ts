// First: turns on Node's compile cache for every module imported after this file's own, and holds
// V8's optimizing compilers back until the command is ready (`startedUp`). The `kiln` launcher
// (bin/kiln.js) preloads it, so the cache also covers this file.
import './start-up.js';
import { reportError, runCommandLine } from './cli/run.ts';

// The app and the server are imported by the commands that need them, when they need them: help
// and usage errors stay quick, and the MCP SDK loads only for `mcp`.
runCommandLine(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportError(error);
  },
);
