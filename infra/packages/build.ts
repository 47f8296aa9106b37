import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import { contractTypeNames, formatDiagnostics, printContractTypes } from './contract-types';

/**
 * Builds the npm packages: the client and the agent adapters, each CommonJS (ES2022) with declarations,
 * compiled by its own `tsconfig.build.json`. An ES module imports them through Node's CommonJS interop.
 *
 *   npx tsx infra/packages/build.ts [client|langgraph|ai-sdk ...]    (all by default; each also builds what it needs)
 *
 * A package builds into `dist/` beside its package.json, or, given a staging directory (the packaging test),
 * into `<stage>/<name>/` with its package.json and README, so a test never writes into the source tree.
 */

export interface PackageSpec {
  name: string;
  dir: string;
  /** Packages of this repository it imports: built first, their declarations stand in for their sources. */
  needs: string[];
}

const repo = resolve(__dirname, '../..');

export const PACKAGES: readonly PackageSpec[] = [
  { name: 'client', dir: 'libs/client', needs: [] },
  { name: 'langgraph', dir: 'libs/langgraph', needs: ['client'] },
  { name: 'ai-sdk', dir: 'libs/ai-sdk', needs: ['client'] },
];

/** Builds the named packages and what they need; returns each built package's directory (where `npm pack` runs). */
export function buildPackages(names: readonly string[], options: { stage?: string } = {}): Map<string, string> {
  const built = new Map<string, string>();
  const build = (name: string): void => {
    if (built.has(name)) return;
    const spec = PACKAGES.find((p) => p.name === name);
    if (spec === undefined) throw new Error(`no package ${JSON.stringify(name)} (known: ${PACKAGES.map((p) => p.name).join(', ')})`);
    spec.needs.forEach(build);
    built.set(name, buildOne(spec, built, options.stage));
  };
  names.forEach(build);
  return built;
}

function buildOne(spec: PackageSpec, built: ReadonlyMap<string, string>, stage: string | undefined): string {
  const source = join(repo, spec.dir);
  const packageDir = stage === undefined ? source : join(stage, spec.name);
  const outDir = join(packageDir, 'dist');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  if (stage !== undefined) for (const file of ['package.json', 'README.md']) copyFileSync(join(source, file), join(packageDir, file));

  const paths: Record<string, string[]> = {};
  if (spec.name === 'client') {
    const sources = readdirSync(join(source, 'src'))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
      .map((f) => ({ file: join(source, 'src', f), text: readFileSync(join(source, 'src', f), 'utf8') }));
    writeFileSync(join(outDir, 'contracts.d.ts'), printContractTypes(contractTypeNames(sources)));
    paths['@memotrace/contracts'] = [join(outDir, 'contracts.d.ts')];
  }
  for (const need of spec.needs) paths[`@memotrace/${need}`] = [join(built.get(need)!, 'dist/index.d.ts')];
  compile(join(source, 'tsconfig.build.json'), { outDir, paths });

  if (spec.name === 'client') pointAtPrintedContracts(outDir);
  assertDeclaredRequires(outDir, JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as PackageJson);
  return packageDir;
}

function compile(configFile: string, overrides: ts.CompilerOptions): void {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    { ...overrides, noEmit: false },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(formatDiagnostics([d]));
      },
    },
  );
  if (parsed === undefined) throw new Error(`cannot read ${configFile}`);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const problems = [...parsed.errors, ...ts.getPreEmitDiagnostics(program)];
  if (problems.length === 0) problems.push(...program.emit().diagnostics);
  if (problems.length > 0) throw new Error(`${relative(repo, configFile)}:\n${formatDiagnostics(problems)}`);
}

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(suffix))
    .map((f) => join(dir, f));
}

/** The client's declarations name the contracts by their alias; in the package, the printed types beside them. */
function pointAtPrintedContracts(outDir: string): void {
  for (const file of filesUnder(outDir, '.d.ts')) {
    let target = relative(dirname(file), join(outDir, 'contracts'));
    if (!target.startsWith('.')) target = `./${target}`;
    writeFileSync(file, readFileSync(file, 'utf8').replace(/(['"])@memotrace\/contracts\1/g, `'${target}'`));
  }
}

interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** Every module the built JavaScript requires is the package's own, Node's, or a declared dependency or peer. */
function assertDeclaredRequires(outDir: string, pkg: PackageJson): void {
  const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
  const packageOf = (specifier: string) =>
    specifier
      .split('/')
      .slice(0, specifier.startsWith('@') ? 2 : 1)
      .join('/');
  for (const file of filesUnder(outDir, '.js')) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/\brequire\("([^"]+)"\)/g)) {
      const ok =
        specifier!.startsWith('.') || specifier!.startsWith('node:') || builtinModules.includes(specifier!) || declared.has(packageOf(specifier!));
      if (!ok) throw new Error(`${pkg.name}: ${relative(outDir, file)} requires ${specifier}, which package.json does not declare`);
    }
  }
}

if (require.main === module) {
  const names = process.argv.slice(2);
  for (const [name, dir] of buildPackages(names.length > 0 ? names : PACKAGES.map((p) => p.name))) {
    process.stdout.write(`built ${name}: ${relative(process.cwd(), join(dir, 'dist')) || '.'}\n`);
  }
}
