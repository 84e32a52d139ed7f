import type { SshCloneSettings } from './ssh-url.ts';

/**
 * What converters need to know about the caller's surface. `baseUrl` is the request's external
 * base URI; it is null where no request exists (MCP), and every URL field is then null.
 */
export type ConvertContext = {
  readonly baseUrl: string | null;
  /** The SSH server's settings, for `ssh_url`; absent where a surface shows none. */
  readonly ssh?: SshCloneSettings | undefined;
};

export function urlFrom(context: ConvertContext, path: string): string | null {
  return context.baseUrl === null ? null : `${context.baseUrl}${path}`;
}
