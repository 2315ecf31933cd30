// Size limits of the TypeScript sources (STYLE: small modules): no file over 400 lines and no
// function (declaration, method, arrow or function expression, React component) over 80 lines,
// outside tests, test support, benchmarks and end-to-end tests. A function's length leaves out the
// methods of object literals inside it (a factory returning an object of methods is measured like a
// class: method by method); callbacks and inner helpers count. And no line over 120 characters
// (the formatter's print width), except two kinds of line that cannot be broken:
//   - a line that is one string literal, template literal without `${…}` or regex literal and
//     nothing else (indentation aside; a trailing `,`, `;` or `)` allowed) — a long message, data
//     or pattern already on a line of its own;
//   - a line that fits once each URL in it (`http://…`, `https://…`) counts as three characters.
// Prints each offender and exits 1.
// `node scripts/check-sizes.mjs [--max-file N] [--max-function N] [--max-line N]`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const MAX_FILE = arg('--max-file', 400);
const MAX_FUNCTION = arg('--max-function', 80);
const MAX_LINE = arg('--max-line', 120);

/** A literal that stands alone on its line: string, template without substitutions, or regex. */
const LONE_LITERAL =
  /^\s*(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\$]|\\.|\$(?!\{))*`|\/(?![*/])(?:[^/\\\n]|\\.)+\/[dgimsuvy]*)[,;)]*$/;
const URL = /https?:\/\/[^\s'"`)>\]]+/g;
/** Whether a line over the limit is one that cannot be broken (see the header). */
const unbreakable = (line) => LONE_LITERAL.test(line) || line.replace(URL, 'URL').length <= MAX_LINE;

const exempt = (path) =>
  /\.test\.tsx?$/.test(path) ||
  /(^|\/)(testing|test-fixtures?)(\/|\.tsx?$)/.test(path) ||
  /test-support\.ts$/.test(path) ||
  /\.d\.ts$/.test(path) ||
  path.startsWith('bench/') ||
  path.startsWith('e2e/') ||
  path.startsWith('resources/models/');

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', '*.ts', '*.tsx'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((p) => p !== '' && !exempt(p));

const problems = [];
for (const path of files) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    continue; // listed but deleted in the work tree
  }
  const lines = text.split('\n');
  if (lines.length > MAX_FILE) problems.push(`${path}: ${lines.length} lines (max ${MAX_FILE})`);
  lines.forEach((line, i) => {
    if (line.length > MAX_LINE && !unbreakable(line))
      problems.push(`${path}:${i + 1}: line of ${line.length} characters (max ${MAX_LINE})`);
  });
  const source = ts.createSourceFile(
    path,
    text,
    ts.ScriptTarget.Latest,
    true,
    path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const span = (node) =>
    source.getLineAndCharacterOfPosition(node.getEnd()).line -
    source.getLineAndCharacterOfPosition(node.getStart(source)).line +
    1;
  const isFn = (node) => ts.isFunctionLike(node) && 'body' in node && node.body !== undefined;
  /** Lines of the object-literal methods inside `fn` (not inside a nested function). */
  const methodLines = (fn) => {
    let total = 0;
    const walk = (node) => {
      if (node !== fn && isFn(node)) {
        const member = ts.isMethodDeclaration(node) ? node : ts.isPropertyAssignment(node.parent) ? node.parent : null;
        if (member && ts.isObjectLiteralExpression(member.parent)) total += span(member);
        return;
      }
      ts.forEachChild(node, walk);
    };
    walk(fn);
    return total;
  };
  const visit = (node) => {
    if (isFn(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const n = span(node) - methodLines(node);
      if (n > MAX_FUNCTION) {
        const name =
          node.name && ts.isIdentifier(node.name)
            ? node.name.text
            : ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)
              ? node.parent.name.text
              : '(anonymous)';
        problems.push(`${path}:${start + 1}: function ${name} is ${n} lines (max ${MAX_FUNCTION})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

if (problems.length > 0) {
  console.error(`size limits: ${problems.length} problem(s)\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(
  `size limits: ${files.length} files within ${MAX_FILE} lines, every function within ${MAX_FUNCTION}` +
    `, every line within ${MAX_LINE} characters`,
);
