import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The service's code: every layer the layer test ranks, scripts and benches aside. */
const FOLDERS = ['domain', 'db', 'infra', 'workflows', 'services', 'activities', 'api', 'admin', 'app'];

export interface FunctionLength {
  file: string;
  /** The function's name, or the variable or property it is assigned to. */
  name: string;
  lines: number;
}

function sources(folder: string): string[] {
  const dir = path.join(ROOT, folder);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.includes('migrations') && statSync(path.join(dir, file)).isFile())
    .map((file) => path.join(folder, file));
}

/** Every function, method and arrow of the service's code, longest first. */
export function functionLengths(): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const file of FOLDERS.flatMap(sources)) {
    const source = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, named: string | undefined): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const own = 'name' in node && node.name ? node.name.getText(source) : undefined;
        found.push({ file, name: own ?? named ?? '(anonymous)', lines: end - start + 1 });
      }
      const name = ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node) ? node.name.getText(source) : named;
      ts.forEachChild(node, (child) => visit(child, name));
    };
    visit(source, undefined);
  }
  return found.sort((a, b) => b.lines - a.lines);
}
