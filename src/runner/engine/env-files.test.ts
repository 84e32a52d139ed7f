import { describe, expect, it } from 'vitest';
import { EnvFileError, parseKeyValueFile, parsePathFile } from './env-files.ts';
import { Masker } from './masker.ts';
import { parseWorkflowCommand } from './workflow-commands.ts';

describe('env files', () => {
  it('reads name=value and heredoc values, the last write winning', () => {
    const text = 'A=1\nB=x=y\nC<<END\nline 1\n\nline 3\nEND\nA=2\n';
    expect(parseKeyValueFile(text)).toEqual({ A: '2', B: 'x=y', C: 'line 1\n\nline 3' });
  });

  it('refuses an unterminated heredoc and a line without a name', () => {
    expect(() => parseKeyValueFile('C<<END\nnever closed\n')).toThrow(EnvFileError);
    expect(() => parseKeyValueFile('just text\n')).toThrow(EnvFileError);
  });

  it('reads GITHUB_PATH one directory a line', () => {
    expect(parsePathFile('/a\n\n /b \n')).toEqual(['/a', '/b']);
  });
});

describe('masking and workflow commands', () => {
  it('masks the longest value first and each line of a multi-line secret', () => {
    const masker = new Masker();
    masker.add('abc');
    masker.add('abcdef');
    masker.add('first\nsecond');
    expect(masker.mask('x abcdef abc first second')).toBe('x *** *** *** ***');
  });

  it('parses commands with properties and escapes', () => {
    expect(parseWorkflowCommand('::error file=a.ts,line=3::bad%0Athing')).toEqual({
      name: 'error',
      properties: { file: 'a.ts', line: '3' },
      message: 'bad\nthing',
    });
    expect(parseWorkflowCommand('plain text')).toBeUndefined();
  });
});
