import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Nx tag constraints (infra/module-boundaries.json) checked over every import:
 * e.g. the domain cannot import adapters, nor any package but node:crypto.
 */
interface Project {
  name: string;
  root: string;
  tags: string[];
}
interface Constraint {
  sourceTag: string;
  onlyDependOnLibsWithTags: string[];
  allowedPackages?: string[];
}

const repo = resolve(__dirname, '..');
const tsconfig = JSON.parse(readFileSync(join(repo, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
const constraints = (JSON.parse(readFileSync(join(__dirname, 'module-boundaries.json'), 'utf8')) as { depConstraints: Constraint[] }).depConstraints;

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry.startsWith('.')) return [];
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

const importPattern = /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(importPattern)].map((m) => m[1] ?? m[2] ?? m[3] ?? '').filter((s) => s !== '');
}

function violations(project: Project): string[] {
  const rules = constraints.filter((c) => project.tags.includes(c.sourceTag));
  const found: string[] = [];
  for (const file of filesUnder(join(repo, project.root), /\.ts$/)) {
    if (file.endsWith('.spec.ts') || file.includes('/testing/')) continue;
    for (const specifier of importsOf(file)) {
      const where = `${relative(repo, file)} imports ${specifier}`;
      if (specifier.startsWith('.')) {
        const target = projectOfPath(relative(repo, resolve(dirname(file), specifier)));
        if (target && target !== project) found.push(`${where}: relative import across projects`);
        continue;
      }
      const target = projectOfAlias(specifier);
      if (target) {
        if (target === project) continue;
        for (const rule of rules) {
          if (!target.tags.some((t) => rule.onlyDependOnLibsWithTags.includes(t))) found.push(`${where}: ${rule.sourceTag} may not depend on ${target.tags.join(',')}`);
        }
        continue;
      }
      for (const rule of rules) {
        if (rule.allowedPackages && !rule.allowedPackages.includes(specifier)) found.push(`${where}: package not allowed for ${rule.sourceTag}`);
      }
    }
  }
  return found;
}

describe('module boundaries (Nx tags)', () => {
  it('finds the projects of the fixed layout', () => {
    expect(projects.map((p) => p.name)).toEqual(expect.arrayContaining(['domain', 'contracts', 'event-store', 'read-models', 'memotrace']));
  });

  it.each(projects.map((p) => [p.name, p] as const))('%s respects its dependency constraints', (_name, project) => {
    expect(violations(project)).toEqual([]);
  });

  it('flags a domain file importing an adapter', () => {
    const domain = projects.find((p) => p.name === 'domain')!;
    const fakeImports = ['@memotrace/event-store', 'pg'];
    const rule = constraints.find((c) => c.sourceTag === 'type:domain')!;
    const target = projectOfAlias(fakeImports[0]!)!;
    expect(domain.tags).toContain('type:domain');
    expect(target.tags.some((t) => rule.onlyDependOnLibsWithTags.includes(t))).toBe(false);
    expect(rule.allowedPackages).not.toContain(fakeImports[1]);
  });
});
