// Typechecks a task folder's TypeScript with the TypeScript compiler API against its tsconfig.json
// (the SDK and the packages it maps): every diagnostic as file:line:column and message.
import { dirname, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface TypeProblem {
  file: string | null;
  line: number | null;
  column: number | null;
  message: string;
}

export function typecheckFolder(tsconfigPath: string): TypeProblem[] {
  const dir = dirname(resolve(tsconfigPath));
  const read = ts.readConfigFile(tsconfigPath, (p) => ts.sys.readFile(p));
  if (read.error)
    return [
      {
        file: relative(dir, tsconfigPath),
        line: null,
        column: null,
        message: ts.flattenDiagnosticMessageText(read.error.messageText, '\n'),
      },
    ];
  const config = ts.parseJsonConfigFileContent(read.config, ts.sys, dir);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)];
  return diagnostics.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return { file: null, line: null, column: null, message };
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    const file = relative(dir, d.file.fileName).split(sep).join('/');
    return { file, line: line + 1, column: character + 1, message };
  });
}
