import { type Command, say, stringValue, withApp } from './command.ts';
import { formatTable, formatTime } from './table.ts';

/** Rows fetched per query while listing: the whole list is printed, a page at a time. */
const PAGE = 500;

/** `repo list`. */
export const repoCommands: readonly Command[] = [
  {
    name: 'repo list',
    summary: 'List every repository, private ones included',
    options: {
      owner: { type: 'string', value: 'NAME', help: 'only those of this person or organisation' },
    },
    run: ({ values, config }) =>
      withApp(config(), async (app) => {
        const ownerName = stringValue(values, 'owner');
        const owner =
          ownerName === undefined ? undefined : await app.services.users.getAccount(ownerName);
        const rows: string[][] = [];
        for (let offset = 0; ; offset += PAGE) {
          const { items } = await app.services.repos.listAll(
            { limit: PAGE, offset },
            owner ? { ownerId: owner.id } : {},
          );
          for (const repo of items) {
            rows.push([
              `${repo.owner.handle}/${repo.name}`,
              repo.private ? 'private' : 'public',
              formatTime(repo.createdAt),
            ]);
          }
          if (items.length < PAGE) break;
        }
        if (rows.length === 0) {
          say('no repositories');
          return;
        }
        say(formatTable(['REPOSITORY', 'VISIBILITY', 'CREATED'], rows));
      }),
  },
];
