import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitCommand } from './ssh-commands.ts';

describe('splitCommand', () => {
  it('reads the command lines git sends', () => {
    expect(splitCommand("git-upload-pack 'owner/name.git'")).toEqual({
      name: 'git-upload-pack',
      args: ['owner/name.git'],
    });
    expect(splitCommand("git-receive-pack '/owner/name.git'")).toEqual({
      name: 'git-receive-pack',
      args: ['/owner/name.git'],
    });
    expect(splitCommand('git upload-archive owner/name')).toEqual({
      name: 'git-upload-archive',
      args: ['owner/name'],
    });
    expect(splitCommand("git-upload-pack 'it'\\''s/x'")).toEqual({
      name: 'git-upload-pack',
      args: ["it's/x"],
    });
  });

  it('refuses what a shell would read otherwise: double quotes, control characters, a megabyte', () => {
    expect(splitCommand('git-upload-pack "a/b"')).toBeUndefined();
    expect(splitCommand("git-upload-pack 'a/b'\n")).toBeUndefined();
    expect(splitCommand("git-upload-pack 'a/b")).toBeUndefined();
    expect(splitCommand(`git-upload-pack ${'a'.repeat(2000)}`)).toBeUndefined();
    expect(splitCommand('')).toBeUndefined();
  });

  it('gives back, for any words, exactly those words once quoted as git quotes them', () => {
    const word = fc.string({ minLength: 1, maxLength: 40 }).filter((w) => !/\p{Cc}/u.test(w));
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (words) => {
        const line = words.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ');
        const parsed = splitCommand(line);
        if (line.length > 1024) return;
        expect(parsed && [parsed.name, ...parsed.args]).toEqual(
          words[0] === 'git' && words.length > 1 ? [`git-${words[1]}`, ...words.slice(2)] : words,
        );
      }),
      { numRuns: 500 },
    );
  });
});
