/**
 * The documentation runs as written: every `kiln …` (or `npx kiln …`) command line in a fenced
 * shell block of README.md and docs/*.md names a command the command line has, with options it
 * takes, so renaming a command or an option without the docs fails here. Checked against the
 * command table itself (and the built-in runner's), not against help text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNNER_OPTIONS } from '../runner/cli.ts';
import { GLOBAL_OPTIONS } from './parse.ts';
import { COMMANDS } from './run.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

type Usage = { readonly page: string; readonly line: string; readonly words: string[] };

/** Shell words of one command, quotes removed; stops at what ends a command (`;`, `|`, `#`…). */
function shellWords(text: string): string[] {
  const words: string[] = [];
  const pattern = /'([^']*)'|"((?:\\.|[^"\\])*)"|([^\s'";|&)#<>]+)|([;|&)#<>])/g;
  let current: string | undefined;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const gap = text.slice(last, match.index);
    if (/\s/.test(gap) && current !== undefined) {
      words.push(current);
      current = undefined;
    }
    last = match.index + match[0].length;
    if (match[4] !== undefined) break;
    current = (current ?? '') + (match[1] ?? match[2] ?? match[3] ?? '');
  }
  if (current !== undefined) words.push(current);
  return words;
}

/** Fenced shell blocks' lines of a page, a line ending in `\` joined with the next. */
function shellLines(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const blocks = [...text.matchAll(/^```(?:sh|bash|shell|console)\b[^\n]*\n([\s\S]*?)^```$/gm)];
  return blocks.flatMap((block) =>
    (block[1] ?? '')
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.replace(/^\$ /, '')),
  );
}

/**
 * Each `kiln` invocation of a line: the word `kiln` where a command starts (line start, after
 * `npx`, `$(`, `&&`, `;`, `|`, `sudo -u USER` or `VAR=value`), with the words after it.
 */
function invocations(page: string): Usage[] {
  const found: Usage[] = [];
  for (const line of shellLines(page)) {
    const starts = /(?:^|[;&|(]|\bnpx|\bsudo(?: -u \S+)?|\bexec|\b[A-Z_]+=\S*)\s*kiln\s+(?=\S)/g;
    for (const match of line.matchAll(starts)) {
      const words = shellWords(line.slice(match.index + match[0].length));
      if (words.length > 0) found.push({ page, line: line.trim(), words });
    }
  }
  return found;
}

type OptionTable = Readonly<Record<string, { readonly type: string; readonly short?: string }>>;

/** The problem with one invocation, or undefined when the command and every option exist. */
function problem(words: readonly string[]): string | undefined {
  let rest = [...words];
  // Global options may come first.
  while (rest[0]?.startsWith('-')) {
    const word = rest.shift() ?? '';
    if (word === '--help' || word === '-h') return undefined;
    if (word === '--config') rest.shift();
    else if (!word.startsWith('--config=')) return `unknown option ${word} before the command`;
  }
  let options: OptionTable;
  const [first = '', second = ''] = rest;
  if (first === 'help') return undefined;
  if (first === 'runner') {
    if (second !== 'register' && second !== 'daemon') return `no command runner ${second}`;
    options = RUNNER_OPTIONS[second];
    rest = rest.slice(2);
  } else {
    const command =
      COMMANDS.find((c) => c.name === `${first} ${second}`) ??
      COMMANDS.find((c) => c.name === first);
    if (!command) {
      const group = COMMANDS.some((c) => c.name.startsWith(`${first} `));
      return group && (second === '' || second.startsWith('-'))
        ? undefined
        : `no command ${[first, second].join(' ').trim()}`;
    }
    options = command.options;
    rest = rest.slice(command.name.split(' ').length);
  }
  const all: OptionTable = { ...GLOBAL_OPTIONS, ...options };
  for (let at = 0; at < rest.length; at++) {
    const word = rest[at] ?? '';
    if (!word.startsWith('-') || word === '-') continue;
    const long = /^--([^=]+)(=.*)?$/.exec(word);
    const name = long ? long[1] : Object.keys(all).find((key) => all[key]?.short === word.slice(1));
    const spec = name === undefined ? undefined : all[name];
    if (!spec) return `unknown option ${word}`;
    if (spec.type === 'string' && !long?.[2]) at++;
  }
  return undefined;
}

describe('the kiln commands in the documentation', () => {
  const usages = PAGES.flatMap(invocations);

  it('are found on the pages that show commands', () => {
    const pages = new Set(usages.map((usage) => usage.page));
    for (const page of ['README.md', 'docs/deployment.md', 'docs/runners.md']) {
      expect(pages, page).toContain(page);
    }
    expect(usages.length).toBeGreaterThanOrEqual(20);
  });

  it('name commands and options the command line has', () => {
    const wrong = usages.flatMap((usage) => {
      const why = problem(usage.words);
      return why ? [`${usage.page}: ${usage.line}: ${why}`] : [];
    });
    expect(wrong).toEqual([]);
  });

  it('start Kiln as users do, not through src/main.ts', () => {
    const direct = PAGES.flatMap((page) =>
      shellLines(page)
        .filter((line) => /\bnode\s+(\S*\/)?src\/main\.ts\b/.test(line))
        .map((line) => `${page}: ${line.trim()}`),
    );
    expect(direct).toEqual([]);
  });

  it('would notice a renamed option, a renamed command and a misplaced global option', () => {
    expect(problem(['user', 'create', '--username', 'a', '--e-mail', 'x'])).toBe(
      'unknown option --e-mail',
    );
    expect(problem(['users', 'create'])).toBe('no command users create');
    expect(problem(['--verbose', 'serve'])).toBe('unknown option --verbose before the command');
    expect(problem(['runner', 'daemon', '--file', 'f', '--workers', '2'])).toBe(
      'unknown option --workers',
    );
    expect(problem(['dump', '-o', 'x.tar'])).toBeUndefined();
    expect(shellWords(`token create --name "a b" --username 'c' | tee x`)).toEqual([
      'token',
      'create',
      '--name',
      'a b',
      '--username',
      'c',
    ]);
  });
});
