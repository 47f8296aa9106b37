import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * Nx tag constraints (infra/module-boundaries.json) checked over every import:
 * e.g. the domain cannot import adapters, nor any package but node:crypto, and may
 * import contracts (the command shape) with `import type` only. Also: no import cycle
 * between projects, nor between the files of one project.
 */
interface Project {
  name: string;
  root: string;
  tags: string[];
}
interface Constraint {
  sourceTag: string;
  onlyDependOnLibsWithTags: string[];
  /** Tags a project may depend on through type-only imports (erased: nothing loaded at run time). */
  typeOnlyDependOnLibsWithTags?: string[];
  allowedPackages?: string[];
}

const repo = resolve(__dirname, '..');
const tsconfig = JSON.parse(readFileSync(join(repo, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
const constraints = (JSON.parse(readFileSync(join(__dirname, 'module-boundaries.json'), 'utf8')) as { depConstraints: Constraint[] }).depConstraints;

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    // dist/: the packages' build output (declarations included), not source
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) return [];
    return statSync(path).isDirectory() ? filesUnder(path, pattern) : pattern.test(entry) ? [path] : [];
  });
}

const projects: Project[] = filesUnder(repo, /^project\.json$/).map((file) => {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { name: string; tags: string[] };
  return { name: json.name, root: relative(repo, dirname(file)), tags: json.tags };
});

function projectOfPath(path: string): Project | undefined {
  return projects.find((p) => path === p.root || path.startsWith(p.root + '/'));
}

function projectOfAlias(specifier: string): Project | undefined {
  const target = tsconfig.compilerOptions.paths[specifier]?.[0];
  return target === undefined ? undefined : projectOfPath(target);
}

interface Import {
  specifier: string;
  /** `import type`, `export type`, all-`type` named bindings, `typeof import('...')`: erased from the JavaScript. */
  typeOnly: boolean;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false; // `import 'x'`: for its side effects
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((e) => e.isTypeOnly)
  );
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  const clause = node.exportClause;
  return (
    node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly))
  );
}

/** Every module a TypeScript source names (parsed, not matched by text: comments and strings are not imports). */
function importsIn(fileName: string, source: string): Import[] {
  const found: Import[] = [];
  const add = (specifier: ts.Node | undefined, typeOnly: boolean) => {
    if (specifier !== undefined && ts.isStringLiteralLike(specifier)) found.push({ specifier: specifier.text, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, isTypeOnlyImport(node));
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, isTypeOnlyExport(node));
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression, node.isTypeOnly);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, true);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS));
  return found;
}

const importCache = new Map<string, Import[]>();
function importsOf(file: string): Import[] {
  let imports = importCache.get(file);
  if (imports === undefined) importCache.set(file, (imports = importsIn(file, readFileSync(file, 'utf8'))));
  return imports;
}

/** The .ts file a relative specifier names (`./x` -> `x.ts` or `x/index.ts`), or undefined (not TypeScript, or not there yet). */
function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base, `${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c) && statSync(c).isFile());
}

/** The project of an import of `file` (alias or relative path), or undefined for a package. */
function projectOfImport(file: string, specifier: string): Project | undefined {
  return specifier.startsWith('.') ? projectOfPath(relative(repo, resolve(dirname(file), specifier))) : projectOfAlias(specifier);
}

/** The rule violated by `project` importing `target`, if any (`typeOnly`: an `import type`). */
function tagViolation(project: Project, target: Project, typeOnly: boolean): string[] {
  return constraints
    .filter((rule) => project.tags.includes(rule.sourceTag))
    .flatMap((rule) => {
      const allowed = (tags: string[] | undefined) => target.tags.some((t) => tags?.includes(t) ?? false);
      if (allowed(rule.onlyDependOnLibsWithTags)) return [];
      if (allowed(rule.typeOnlyDependOnLibsWithTags))
        return typeOnly ? [] : [`${rule.sourceTag} may depend on ${target.tags.join(',')} through type-only imports only (import type)`];
      return [`${rule.sourceTag} may not depend on ${target.tags.join(',')}`];
    });
}

function violations(project: Project): string[] {
  const rules = constraints.filter((c) => project.tags.includes(c.sourceTag));
  const found: string[] = [];
  for (const file of filesUnder(join(repo, project.root), /\.ts$/)) {
    if (file.endsWith('.spec.ts') || file.includes('/testing/')) continue;
    for (const { specifier, typeOnly } of importsOf(file)) {
      const where = `${relative(repo, file)} imports ${specifier}`;
      if (specifier.startsWith('.')) {
        const target = projectOfPath(relative(repo, resolve(dirname(file), specifier)));
        if (target && target !== project) found.push(`${where}: relative import across projects`);
        continue;
      }
      const target = projectOfAlias(specifier);
      if (target) {
        if (target === project) continue;
        for (const problem of tagViolation(project, target, typeOnly)) found.push(`${where}: ${problem}`);
        continue;
      }
      for (const rule of rules) {
        if (rule.allowedPackages && !rule.allowedPackages.includes(specifier)) found.push(`${where}: package not allowed for ${rule.sourceTag}`);
      }
    }
  }
  return found;
}

// ---------------------------------------------------------------- import cycles

/** Directed graph: node -> (next node -> an import that makes the edge, for the report). */
type Graph = Map<string, Map<string, string>>;

function addEdge(graph: Graph, from: string, to: string, because: string): void {
  for (const node of [from, to]) if (!graph.has(node)) graph.set(node, new Map());
  const edges = graph.get(from)!;
  if (!edges.has(to)) edges.set(to, because);
}

/** Strongly connected components that hold a cycle (two nodes or more, or a node importing itself); Tarjan. */
function cyclicComponents(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)!.keys()) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)!.has(node)) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return components;
}

/** A shortest cycle through `start` inside `members`: `[start, ..., start]`. */
function shortestCycle(graph: Graph, start: string, members: ReadonlySet<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const next of [...graph.get(node)!.keys()].sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** One line per cyclic component: a cycle `a -> b -> a` with the import making each step, and the component if larger. */
function cycleReport(graph: Graph): string[] {
  const report = cyclicComponents(graph).map((component) => {
    const cycle = shortestCycle(graph, component[0]!, new Set(component));
    const steps = cycle.slice(1).map((to, i) => graph.get(cycle[i]!)!.get(to)!);
    const more = component.length > cycle.length - 1 ? ` [the cycle is part of a tangle of ${component.length}: ${component.join(', ')}]` : '';
    return `${cycle.join(' -> ')} (${steps.join('; ')})${more}`;
  });
  return report.sort();
}

/**
 * The modules of a project: its .ts files, testing helpers included (they are imported through
 * aliases such as `@memotrace/domain/testing/histories`). Spec files are left out: nothing imports
 * them, and the int specs of client and services import the whole app (`@memotrace/memotrace/testing`).
 */
function projectFiles(project: Project): string[] {
  return filesUnder(join(repo, project.root), /\.ts$/).filter((file) => !file.endsWith('.spec.ts'));
}

/** Project -> project, from path aliases and relative imports (type-only imports too: they tie the builds together). */
function projectGraph(): Graph {
  const graph: Graph = new Map(projects.map((p) => [p.name, new Map()]));
  for (const project of projects) {
    for (const file of projectFiles(project)) {
      for (const { specifier } of importsOf(file)) {
        const target = projectOfImport(file, specifier);
        if (target && target !== project) addEdge(graph, project.name, target.name, `${relative(repo, file)} imports ${specifier}`);
      }
    }
  }
  return graph;
}

/** File -> file within one project, from its relative imports (type-only imports too). */
function fileGraph(project: Project): Graph {
  const graph: Graph = new Map();
  for (const file of projectFiles(project)) {
    const from = relative(repo, file);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const { specifier } of importsOf(file)) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(file, specifier);
      if (target !== undefined && projectOfPath(relative(repo, target)) === project) addEdge(graph, from, relative(repo, target), specifier);
    }
  }
  return graph;
}

describe('module boundaries (Nx tags)', () => {
  it('finds the projects of the fixed layout', () => {
    expect(projects.map((p) => p.name)).toEqual(expect.arrayContaining(['domain', 'contracts', 'log-store', 'read-models', 'memotrace']));
  });

  it.each(projects.map((p) => [p.name, p] as const))('%s respects its dependency constraints', (_name, project) => {
    expect(violations(project)).toEqual([]);
  });

  it('flags a domain file importing an adapter', () => {
    const domain = projects.find((p) => p.name === 'domain')!;
    const fakeImports = ['@memotrace/log-store', 'pg'];
    const rule = constraints.find((c) => c.sourceTag === 'type:domain')!;
    const target = projectOfAlias(fakeImports[0]!)!;
    expect(domain.tags).toContain('type:domain');
    expect(target.tags.some((t) => rule.onlyDependOnLibsWithTags.includes(t))).toBe(false);
    expect(rule.allowedPackages).not.toContain(fakeImports[1]);
  });

  it('lets the domain import contracts with `import type` only', () => {
    const domain = projects.find((p) => p.name === 'domain')!;
    const contracts = projectOfAlias('@memotrace/contracts')!;
    const source = [
      "import type { DomainCommand } from '@memotrace/contracts';",
      "import { type WireCommand, type DomainCommand as C } from '@memotrace/contracts';",
      "export type { WireCommand } from '@memotrace/contracts';",
      "type T = typeof import('@memotrace/contracts');",
      "import { wireCommand } from '@memotrace/contracts';",
      "import { type WireCommand, wireCommand as w } from '@memotrace/contracts';",
      "export * from '@memotrace/contracts';",
      "const lazy = () => import('@memotrace/contracts');",
      "import '@memotrace/contracts';",
      "// import { wireCommand } from '@memotrace/log-store';",
    ].join('\n');
    expect(importsIn('fake.ts', source).map((i) => [i.specifier, i.typeOnly])).toEqual([
      ...Array.from({ length: 4 }, () => ['@memotrace/contracts', true]),
      ...Array.from({ length: 5 }, () => ['@memotrace/contracts', false]),
    ]);
    expect(tagViolation(domain, contracts, true)).toEqual([]);
    expect(tagViolation(domain, contracts, false)).toEqual([
      'type:domain may depend on scope:shared,type:contracts through type-only imports only (import type)',
    ]);
    // and contracts import no project: the domain derives its command types from them, not the other way round
    expect(tagViolation(contracts, domain, true)).toEqual(['type:contracts may not depend on scope:shared,type:domain']);
  });

  it('finds import cycles, and only cycles', () => {
    const graph: Graph = new Map();
    for (const [from, to] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'd'],
      ['f', 'f'],
      ['g', 'a'],
    ] as const)
      addEdge(graph, from, to, `${from}>${to}`);
    expect(cycleReport(graph)).toEqual(['a -> b -> c -> a (a>b; b>c; c>a)', 'd -> e -> d (d>e; e>d)', 'f -> f (f>f)']);
    addEdge(graph, 'e', 'g', 'e>g'); // g -> a -> ... -> d -> e -> g: one tangle now
    expect(cycleReport(graph)).toEqual(['a -> b -> c -> a (a>b; b>c; c>a) [the cycle is part of a tangle of 6: a, b, c, d, e, g]', 'f -> f (f>f)']);
    const tangle: Graph = new Map();
    for (const [from, to] of [
      ['a', 'b'],
      ['b', 'a'],
      ['b', 'c'],
      ['c', 'a'],
    ] as const)
      addEdge(tangle, from, to, '');
    expect(cycleReport(tangle)).toEqual(['a -> b -> a (; ) [the cycle is part of a tangle of 3: a, b, c]']);
  });

  it('has no import cycle between projects (aliases and relative imports, type-only and testing/ included)', () => {
    expect(cycleReport(projectGraph())).toEqual([]);
  });

  it.each(projects.map((p) => [p.name, p] as const))(
    '%s has no import cycle between its files (relative imports, type-only included)',
    (_name, project) => {
      expect(cycleReport(fileGraph(project))).toEqual([]);
    },
  );
});
