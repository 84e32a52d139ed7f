/** V8 flags Kiln runs with; they must be on the command line (NODE_OPTIONS refuses some). */
export const NODE_FLAGS: readonly string[];
/** Environment Kiln runs with unless the caller already set it. */
export const NODE_ENV: Readonly<Record<string, string>>;
/** The preload that turns the compile cache on before src/main.ts loads. */
export const PRELOAD: string;
/** src/main.ts. */
export const MAIN: string;
/** The bundled Node 24's binary. */
export function bundledNode(): string;
/** The command line and environment that run Kiln with `args`. */
export function kilnCommand(
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): { program: string; args: string[]; env: Record<string, string | undefined> };
