import { compareUrl, repoUrl } from '../repos/web-addresses.ts';
import type { PullSuggestion } from './pull-suggestions.service.ts';

/**
 * The lines `git push` shows after a branch was pushed, Gitea's own wording (its `hook`
 * command prints them; tools that read a push's output look for them): an empty line, what to
 * do, the address indented by two spaces, an empty line. The same over HTTP and SSH.
 */
export function pushHintLines(
  suggestions: readonly PullSuggestion[],
  baseUrl: string,
): readonly string[] {
  return suggestions.flatMap((suggestion) =>
    suggestion.kind === 'create'
      ? [
          '',
          `Create a new pull request for '${suggestion.label}':`,
          `  ${baseUrl}${compareUrl(suggestion.base, suggestion.baseBranch, suggestion.headRef)}`,
          '',
        ]
      : [
          '',
          'Visit the existing pull request:',
          `  ${baseUrl}${repoUrl(suggestion.base)}/pulls/${suggestion.number}`,
          '',
        ],
  );
}
