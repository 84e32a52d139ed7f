import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_LIMITS, parseAnnotationCommand } from './annotation-command.ts';

// The toolkit's escapes (@actions/core `escapeData`, `escapeProperty`), as a workflow writes them.
const escapeData = (text: string) =>
  text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const escapeProperty = (text: string) =>
  escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');

describe('parseAnnotationCommand', () => {
  it('reads the level, the properties and the message', () => {
    expect(
      parseAnnotationCommand(
        '::error file=src/app.ts,line=10,col=5,endLine=12,endColumn=7,title=Type error::x is not a number',
      ),
    ).toEqual({
      level: 'error',
      message: 'x is not a number',
      title: 'Type error',
      file: 'src/app.ts',
      line: 10,
      endLine: 12,
      col: 5,
      endCol: 7,
    });
    expect(parseAnnotationCommand('  ::NOTICE::deployed')).toMatchObject({
      level: 'notice',
      message: 'deployed',
      file: null,
      line: null,
    });
  });

  it('undoes the escapes of data and of properties', () => {
    expect(
      parseAnnotationCommand(
        '::warning file=a%2Cb%3Ac.ts,title=50%25%0Adone::line one%0Aline two %3A %2C %25',
      ),
    ).toMatchObject({
      file: 'a,b:c.ts',
      title: '50%\ndone',
      // In the message only %25, %0D and %0A are escapes.
      message: 'line one\nline two %3A %2C %',
    });
    expect(parseAnnotationCommand('::error::%250A is not a newline')?.message).toBe(
      '%0A is not a newline',
    );
  });

  it('leaves out what is missing or malformed, and ignores other lines', () => {
    expect(parseAnnotationCommand('::error line=abc,col=-1,endLine=0,file,=x,title=::m')).toEqual({
      level: 'error',
      message: 'm',
      title: null,
      file: null,
      line: null,
      endLine: null,
      col: null,
      endCol: null,
    });
    expect(parseAnnotationCommand('::error line=99999999999::m')?.line).toBeNull();
    for (const line of [
      'error::x',
      '::debug::x',
      '::set-output name=a::b',
      '::error',
      ': ::error::x',
      '',
    ]) {
      expect(parseAnnotationCommand(line), line).toBeUndefined();
    }
  });

  it('stays bounded on huge lines', () => {
    const huge = `::error file=${'f'.repeat(100_000)},title=${'t'.repeat(100_000)}::${'%0A'.repeat(500_000)}`;
    const started = performance.now();
    const parsed = parseAnnotationCommand(huge);
    expect(performance.now() - started).toBeLessThan(200);
    // The command's head is longer than a line is searched: not an annotation.
    expect(parsed).toBeUndefined();
    const long = parseAnnotationCommand(
      `::error title=${'t'.repeat(1000)}::${'m%25'.repeat(1_000_000)}`,
    );
    expect(long?.message.length).toBe(ANNOTATION_LIMITS.message);
    expect(long?.title?.length).toBe(ANNOTATION_LIMITS.title);
    expect(parseAnnotationCommand(`::error::${'::'.repeat(1_000_000)}`)?.message.length).toBe(
      ANNOTATION_LIMITS.message,
    );
  });

  it('gives back what the toolkit wrote, for any message and properties (generated)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 80 });
    fc.assert(
      fc.property(
        fc.constantFrom('error', 'warning', 'notice'),
        text,
        fc.record(
          { file: text, title: text, line: fc.integer({ min: 1, max: 1_000_000 }) },
          { requiredKeys: [] },
        ),
        (level, message, props) => {
          const parts = Object.entries(props).map(
            ([key, value]) => `${key}=${escapeProperty(String(value))}`,
          );
          const line = `::${level}${parts.length > 0 ? ` ${parts.join(',')}` : ''}::${escapeData(message)}`;
          const parsed = parseAnnotationCommand(line);
          expect(parsed?.level).toBe(level);
          expect(parsed?.message).toBe(message);
          expect(parsed?.file).toBe(props.file ? props.file : null);
          expect(parsed?.title).toBe(props.title ? props.title : null);
          expect(parsed?.line).toBe(props.line ?? null);
        },
      ),
    );
  });

  it('never throws and keeps every field within bounds on hostile lines (generated)', () => {
    const hostile = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc
        .array(
          fc.constantFrom(
            '::',
            'error',
            ' ',
            ',',
            '=',
            '%',
            '%0A',
            '%3A',
            '%2C',
            '%25',
            'line=',
            '1',
            'x',
            '\n',
          ),
          {
            maxLength: 200,
          },
        )
        .map((pieces) => pieces.join('')),
    );
    fc.assert(
      fc.property(hostile, (line) => {
        const parsed = parseAnnotationCommand(line);
        if (parsed === undefined) return;
        expect(['error', 'warning', 'notice']).toContain(parsed.level);
        expect(parsed.message.length).toBeLessThanOrEqual(ANNOTATION_LIMITS.message);
        expect((parsed.title ?? '').length).toBeLessThanOrEqual(ANNOTATION_LIMITS.title);
        expect((parsed.file ?? '').length).toBeLessThanOrEqual(ANNOTATION_LIMITS.file);
        for (const n of [parsed.line, parsed.endLine, parsed.col, parsed.endCol]) {
          if (n !== null) expect(Number.isSafeInteger(n) && n >= 1).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
