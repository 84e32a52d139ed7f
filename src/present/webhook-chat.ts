/**
 * The chat receivers' formats (Slack, Discord, Microsoft Teams, Matrix), made from the Gitea
 * payload of an event as Gitea's services/webhook/{slack,discord,msteams,matrix}.go make them:
 * one line saying what happened, a link, and for pushes one line per commit. Pure.
 */

/** The parts of a Gitea payload the summaries read; every event has some of them. */
type GiteaPayload = {
  readonly action?: string;
  readonly ref?: string;
  readonly ref_type?: string;
  readonly compare_url?: string;
  readonly total_commits?: number;
  readonly commits?: ReadonlyArray<{
    id: string;
    message: string;
    url: string | null;
    author: { name: string };
  }>;
  readonly repository?: { full_name: string; html_url: string | null };
  readonly sender?: { login: string; avatar_url: string | null; html_url: string | null };
  readonly pull_request?: {
    number: number;
    title: string;
    html_url: string | null;
    merged: boolean;
  };
  readonly release?: { tag_name: string; name: string; html_url: string | null };
  readonly forkee?: { full_name: string; html_url: string | null };
  readonly comment?: { body: string; html_url: string | null };
};

/** What every chat message says, before it is put in a receiver's envelope. */
export type ChatSummary = {
  readonly title: string;
  readonly url: string;
  /** Lines under the title (commits of a push, a comment's text). */
  readonly lines: readonly string[];
  /** Gitea's colours: green for good news, red for removals, blue for the rest. */
  readonly color: number;
};

const GREEN = 0x1db954;
const RED = 0xcc4444;
const BLUE = 0x4078c0;

function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

/** One line saying what an event did, from its Gitea payload. */
export function summarize(event: string, payload: GiteaPayload): ChatSummary {
  const repo = payload.repository?.full_name ?? '';
  const repoUrl = payload.repository?.html_url ?? '';
  const who = payload.sender?.login ?? '';
  switch (event) {
    case 'push': {
      const total = payload.total_commits ?? 0;
      return {
        title: `[${repo}:${shortRef(payload.ref ?? '')}] ${total} new commit${total === 1 ? '' : 's'} by ${who}`,
        url: payload.compare_url || repoUrl,
        lines: (payload.commits ?? []).map(
          (commit) =>
            `${commit.id.slice(0, 10)}: ${commit.message.split('\n')[0]} - ${commit.author.name}`,
        ),
        color: BLUE,
      };
    }
    case 'create':
    case 'delete':
      return {
        title: `[${repo}] ${payload.ref_type ?? 'ref'} ${payload.ref ?? ''} ${event === 'create' ? 'created' : 'deleted'} by ${who}`,
        url: repoUrl,
        lines: [],
        color: event === 'create' ? GREEN : RED,
      };
    case 'fork':
      return {
        title: `${who} forked ${repo} to ${payload.forkee?.full_name ?? ''}`,
        url: payload.forkee?.html_url ?? repoUrl,
        lines: [],
        color: GREEN,
      };
    case 'pull_request':
    case 'pull_request_comment': {
      const pull = payload.pull_request;
      const action = pull?.merged && payload.action === 'closed' ? 'merged' : payload.action;
      return {
        title: `[${repo}] Pull request ${action}: #${pull?.number ?? ''} ${pull?.title ?? ''} by ${who}`,
        url: payload.comment?.html_url ?? pull?.html_url ?? repoUrl,
        lines: payload.comment ? [payload.comment.body] : [],
        color:
          action === 'closed' ? RED : action === 'opened' || action === 'merged' ? GREEN : BLUE,
      };
    }
    case 'release':
      return {
        title: `[${repo}] Release ${payload.action ?? ''}: ${payload.release?.tag_name ?? ''} by ${who}`,
        url: payload.release?.html_url ?? repoUrl,
        lines: [],
        color: payload.action === 'deleted' ? RED : GREEN,
      };
    default:
      return {
        title: `[${repo}] Repository ${payload.action ?? event} by ${who}`,
        url: repoUrl,
        lines: [],
        color: payload.action === 'deleted' ? RED : GREEN,
      };
  }
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/**
 * The body for a chat receiver of `type`, or the Gitea payload itself for `gitea`/`forgejo`.
 */
export function chatPayload(type: string, event: string, payload: unknown): unknown {
  if (type === 'gitea' || type === 'forgejo') return payload;
  const gitea = payload as GiteaPayload;
  const summary = summarize(event, gitea);
  const text = [summary.title, ...summary.lines].join('\n');
  switch (type) {
    case 'slack':
      return {
        text: `<${summary.url}|${summary.title}>`,
        username: 'Kiln',
        icon_url: gitea.sender?.avatar_url ?? '',
        attachments: summary.lines.length
          ? [{ color: `#${summary.color.toString(16)}`, text: summary.lines.join('\n') }]
          : [],
      };
    case 'discord':
      return {
        username: 'Kiln',
        avatar_url: gitea.sender?.avatar_url ?? '',
        embeds: [
          {
            title: summary.title,
            description: summary.lines.join('\n'),
            url: summary.url,
            color: summary.color,
            author: {
              name: gitea.sender?.login ?? '',
              url: gitea.sender?.html_url ?? '',
              icon_url: gitea.sender?.avatar_url ?? '',
            },
          },
        ],
      };
    case 'msteams':
      return {
        '@type': 'MessageCard',
        '@context': 'https://schema.org/extensions',
        themeColor: summary.color.toString(16),
        title: summary.title,
        summary: summary.title,
        sections: [
          {
            activityTitle: gitea.sender?.login ?? '',
            activityImage: gitea.sender?.avatar_url ?? '',
            text: summary.lines.join('\n\n'),
            facts: [{ name: 'Repository:', value: gitea.repository?.full_name ?? '' }],
            markdown: true,
          },
        ],
        potentialAction: [
          {
            '@type': 'OpenUri',
            name: 'View in Kiln',
            targets: [{ os: 'default', uri: summary.url }],
          },
        ],
      };
    default:
      return {
        body: text,
        msgtype: 'm.notice',
        format: 'org.matrix.custom.html',
        formatted_body: [
          `<a href="${escapeHtml(summary.url)}">${escapeHtml(summary.title)}</a>`,
          ...summary.lines.map(escapeHtml),
        ].join('<br>'),
      };
  }
}
