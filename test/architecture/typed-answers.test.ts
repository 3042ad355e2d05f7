import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';

/**
 * An operation's answer, a presenter's record and a projected body are typed by their schemas:
 * the fixture's marked lines each drop or misname a field. `npm run typecheck` fails when a marked
 * line compiles; this test compiles the fixture without its `@ts-expect-error` directives and holds
 * that each marked line fails for the field its marker names, and no other line fails.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(ROOT, 'test/architecture/fixtures/typed-answers.ts');
const MARKER = /\/\/ @ts-expect-error: (\w+)$/;

function compiledWithoutDirectives(text: string): { line: number; message: string }[] {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error('tsconfig.json not read');
  const host = ts.createCompilerHost(config.options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    path.resolve(name) === FIXTURE ? ts.createSourceFile(name, text, language) : read(name, language, ...rest);
  const program = ts.createProgram([FIXTURE], config.options, host);
  const source = program.getSourceFile(FIXTURE)!;
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => ({
    line: source.getLineAndCharacterOfPosition(diagnostic.start!).line,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  }));
}

test('an answer that drops or misnames a field of its schema does not compile, and fails for that field', () => {
  const text = readFileSync(FIXTURE, 'utf8');
  const expected = new Map<number, string>();
  text.split('\n').forEach((line, index) => {
    const field = MARKER.exec(line.trim())?.[1];
    if (field !== undefined) expected.set(index + 1, field);
  });
  expect(expected.size).toBeGreaterThanOrEqual(8);

  const errors = compiledWithoutDirectives(text.replaceAll('// @ts-expect-error: ', '// fails: '));
  const failedLines = [...new Set(errors.map((error) => error.line))].sort((a, b) => a - b);
  expect(failedLines).toEqual([...expected.keys()]);
  for (const [line, field] of expected) {
    const messages = errors.filter((error) => error.line === line).map((error) => error.message);
    expect(messages.join('\n'), `line ${line + 1}`).toContain(`'${field}'`);
  }
}, 60_000);
