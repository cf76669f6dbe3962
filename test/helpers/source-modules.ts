/**
 * Reads the module structure of the source tree with the TypeScript parser:
 * the names each file exports and the files each file imports, type-only
 * imports included. The layout tests build their rules on it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Returns every `.ts` file under `dir`, depth first, as repo paths. */
export const sourceFiles = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) return sourceFiles(full);
      return full.endsWith('.ts') ? [full] : [];
    });

const parse = (file: string, text?: string): ts.SourceFile =>
  ts.createSourceFile(
    file,
    text ?? readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true
  );

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some(
    (m) => m.kind === ts.SyntaxKind.ExportKeyword
  );

const bindingNames = (name: ts.BindingName): string[] => {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) =>
    ts.isOmittedExpression(e) ? [] : bindingNames(e.name)
  );
};

/** Returns the names a module declares at its top level, with whether each is exported. */
export const topLevelNames = (
  file: string,
  text?: string
): { name: string; exported: boolean }[] => {
  const names: { name: string; exported: boolean }[] = [];
  for (const node of parse(file, text).statements) {
    const exported = isExported(node);
    if (ts.isVariableStatement(node)) {
      for (const d of node.declarationList.declarations) {
        for (const name of bindingNames(d.name)) names.push({ name, exported });
      }
    } else if (
      (ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isEnumDeclaration(node)) &&
      node.name
    ) {
      names.push({ name: node.name.text, exported });
    }
  }
  return names;
};

/**
 * Returns the names a module declares and exports itself (functions,
 * classes, interfaces, types, enums, consts); re-exports of another
 * module's names are that module's, so they do not count.
 */
export const declaredExports = (file: string, text?: string): string[] => [
  ...new Set(
    topLevelNames(file, text)
      .filter((n) => n.exported)
      .map((n) => n.name)
  ),
];

/**
 * Returns the repo paths of the source files `file` imports or re-exports,
 * type-only imports included; package imports are left out. `#lib/*`
 * resolves to `lib/*`, and a `.js` suffix to its `.ts` source.
 */
export const importedFiles = (file: string, text?: string): string[] => {
  const specifiers: string[] = [];
  for (const node of parse(file, text).statements) {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push(node.moduleSpecifier.text);
    }
  }
  return [
    ...new Set(
      specifiers.flatMap((s) => {
        let target: string;
        if (s.startsWith('#lib/')) target = path.join('lib', s.slice(5));
        else if (s.startsWith('.')) target = path.join(path.dirname(file), s);
        else return [];
        return [target.replace(/\.js$/, '.ts')];
      })
    ),
  ];
};
