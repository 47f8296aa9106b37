import { join, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * The packed client names the contract's types (`FactsResponse`, `WireCommandInput`, ...) but the
 * contracts are not a package of their own, and their types are zod schemas' outputs. The client's
 * build prints each type it names in full, as the compiler resolves it, into one declaration file:
 * the package stays self-contained and needs no zod, and the types still have one source, the schemas.
 */

const CONTRACTS = '@memotrace/contracts';
const repo = resolve(__dirname, '../..');

/**
 * The contract types the given sources import or re-export. A value import (a schema, a function) is an
 * error: it would make the packed client load the contracts at run time.
 */
export function contractTypeNames(sources: readonly { file: string; text: string }[]): string[] {
  const names = new Set<string>();
  for (const { file, text } of sources) {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    for (const statement of source.statements) {
      const declaration = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement : undefined;
      const specifier = declaration?.moduleSpecifier;
      if (declaration === undefined || specifier === undefined || !ts.isStringLiteral(specifier) || specifier.text !== CONTRACTS) continue;
      for (const { name, typeOnly } of namedBindings(declaration)) {
        if (!typeOnly) throw new Error(`${file}: ${name} is imported from ${CONTRACTS} as a value; the packed client may import types only`);
        names.add(name);
      }
    }
  }
  return [...names].sort();
}

function namedBindings(declaration: ts.ImportDeclaration | ts.ExportDeclaration): { name: string; typeOnly: boolean }[] {
  if (ts.isImportDeclaration(declaration)) {
    const clause = declaration.importClause;
    const bindings = clause?.namedBindings;
    if (clause === undefined || clause.name !== undefined || bindings === undefined || !ts.isNamedImports(bindings)) {
      return [{ name: declaration.getText(), typeOnly: false }];
    }
    return bindings.elements.map((e) => ({ name: (e.propertyName ?? e.name).text, typeOnly: clause.isTypeOnly || e.isTypeOnly }));
  }
  const clause = declaration.exportClause;
  if (clause === undefined || !ts.isNamedExports(clause)) return [{ name: declaration.getText(), typeOnly: false }];
  return clause.elements.map((e) => ({ name: (e.propertyName ?? e.name).text, typeOnly: declaration.isTypeOnly || e.isTypeOnly }));
}

/** `export type Name = <the type in full>;` for each name, checked to stand alone (no name or import it does not define). */
export function printContractTypes(names: readonly string[]): string {
  const { checker, source, exported } = contractsProgram();
  const printer = ts.createPrinter();
  const flags = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.InTypeAlias;
  const lines = names.map((name) => {
    const symbol = exported.get(name);
    if (symbol === undefined) throw new Error(`${CONTRACTS} exports no ${name}`);
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (!(target.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface))) throw new Error(`${CONTRACTS}: ${name} is not a type`);
    const node = checker.typeToTypeNode(checker.getDeclaredTypeOfSymbol(target), undefined, flags);
    if (node === undefined) throw new Error(`${CONTRACTS}: cannot print ${name}`);
    return `export type ${name} = ${printer.printNode(ts.EmitHint.Unspecified, node, source)};`;
  });
  const text = `// The MemoTrace contract types this package names, printed from the contract's schemas.\n${lines.join('\n')}\n`;
  assertStandsAlone(text);
  return text;
}

let contracts: { checker: ts.TypeChecker; source: ts.SourceFile; exported: Map<string, ts.Symbol> } | undefined;

/** The contracts' exports as the compiler sees them (built once: a program over the contracts and zod takes seconds). */
function contractsProgram() {
  if (contracts === undefined) {
    const index = join(repo, 'contracts/src/index.ts');
    const options = { strict: true, module: ts.ModuleKind.Node16, target: ts.ScriptTarget.ES2022, skipLibCheck: true, noEmit: true };
    const program = ts.createProgram([index], options);
    const checker = program.getTypeChecker();
    const source = program.getSourceFile(index)!;
    contracts = { checker, source, exported: new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((s) => [s.name, s])) };
  }
  return contracts;
}

/** Compiles the printed types alone: a type the printer named instead of expanding would be an unknown name here. */
function assertStandsAlone(text: string): void {
  if (text.includes('import(')) throw new Error('the printed contract types import a module');
  const file = '/contract-types-check.ts';
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, types: [] };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? text : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, version, onError) =>
    name === file ? ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true) : getSourceFile(name, version, onError);
  const program = ts.createProgram([file], options, host);
  const problems = ts.getPreEmitDiagnostics(program, program.getSourceFile(file));
  if (problems.length > 0) throw new Error(`the printed contract types do not stand alone:\n${formatDiagnostics(problems)}`);
}

export function formatDiagnostics(diagnostics: readonly ts.Diagnostic[]): string {
  return ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => repo, getNewLine: () => '\n' });
}
