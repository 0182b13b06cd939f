// How long each function of src/ is, read with TypeScript's parser: the house caps a function
// at 100 lines as it caps a file at 400 (test/architecture/imports.test.ts).
//
// What counts: every function declaration, method, constructor, accessor, function expression
// and arrow function, from the line of its first token (its name, or `async`) to the line of its
// closing brace, inclusive; a function inside another counts in both. A declarative table is
// not counted: a function whose body is one object or array literal (an arrow returning one, or
// a body that is a single `return` of one), with `as const`, `satisfies` or parentheses around
// it at most.
//
//   node dist/test/architecture/function-lengths.js [--over 60] [src]   (after npm run build)
// lists the functions over the given length, longest first.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface FunctionLength {
  /** Relative to the directory read. */
  file: string;
  name: string;
  /** 1-based line of the function's first token. */
  line: number;
  lines: number;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Its body is one object or array literal: a table written as a function. */
function isTable(node: ts.FunctionLikeDeclaration): boolean {
  const body = node.body;
  if (body === undefined) return false;
  let expression: ts.Node | undefined;
  if (ts.isBlock(body)) {
    const [only] = body.statements;
    if (body.statements.length !== 1 || only === undefined || !ts.isReturnStatement(only)) return false;
    expression = only.expression;
  } else expression = body;
  while (
    expression !== undefined &&
    (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression))
  )
    expression = expression.expression;
  return (
    expression !== undefined && (ts.isObjectLiteralExpression(expression) || ts.isArrayLiteralExpression(expression))
  );
}

/** A function's name as a reader finds it: its own, its variable's or property's, else where it is passed. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name !== undefined) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

export function functionLengths(directory: string): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const file of sourceFiles(directory)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const declaration = node as ts.FunctionLikeDeclaration;
        if (!isTable(declaration)) {
          const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
          const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          found.push({
            file: path.relative(directory, file),
            name: nameOf(declaration, source),
            line: first + 1,
            lines: last - first + 1,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const overAt = args.indexOf('--over');
  const over = overAt >= 0 ? Number(args[overAt + 1]) : 60;
  const directory = args.find((arg, index) => !arg.startsWith('--') && index !== overAt + 1) ?? 'src';
  const all = functionLengths(path.resolve(directory));
  const long = all.filter((entry) => entry.lines > over);
  for (const entry of long) process.stdout.write(`${entry.lines}\t${entry.file}:${entry.line}\t${entry.name}\n`);
  process.stdout.write(
    `${all.length} functions; longest ${all[0]?.lines ?? 0}; over 60: ${all.filter((e) => e.lines > 60).length}; over 100: ${all.filter((e) => e.lines > 100).length}\n`,
  );
}
