import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readConfig } from '@memotrace/runtime';
import { parse } from 'yaml';

/**
 * docker-compose.yml cannot run here (no Docker engine); this keeps it consistent
 * with the code: MemoTrace's own services (the `x-memotrace` ones, running the
 * repo's code) start a file that exists, set only variables the code reads, and
 * together set every variable `readConfig` reads (but the exempted ones).
 */
const ROOT = resolve(__dirname, '..');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      image?: string;
      command?: string[] | string;
      environment?: Record<string, string> | string[];
      deploy?: { replicas?: number };
      working_dir?: string;
    }
  >;
};
const services = Object.entries(compose.services);
const ours = services.filter(([, s]) => s.working_dir === '/app');

/** Variables readConfig does not need from compose, and why. */
const EXEMPT: Record<string, string> = {
  MEMOTRACE_DATA_DIR: 'only for the embedded PostgreSQL; compose sets DATABASE_URL',
  MEMOTRACE_API_KEYS: 'inline alternative to MEMOTRACE_API_KEYS_FILE (setting both is an error)',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.') || name === 'dist') return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs|sh)$/.test(name) && !/\.spec\.ts$/.test(name) ? [path] : [];
  });
}

/** Every `process.env.X`, `process.env['X']`, `env['X']`, `env.X` in the repo's (non-test) sources. */
function variablesReadByCode(): Set<string> {
  const names = new Set<string>();
  const code = /\benv(?:\.([A-Z_][A-Z0-9_]*)|\[\s*['"]([A-Za-z_][A-Za-z0-9_.]*)['"]\s*\])/g;
  const shell = /\$\{?([A-Z_][A-Z0-9_]*)/g;
  for (const file of ['libs', 'services', 'projections', 'contracts', 'infra'].flatMap((d) => sourceFiles(join(ROOT, d)))) {
    for (const m of readFileSync(file, 'utf8').matchAll(file.endsWith('.sh') ? shell : code)) names.add((m[1] ?? m[2])!);
  }
  return names;
}

function environmentOf(service: { environment?: Record<string, string> | string[] }): string[] {
  const env = service.environment ?? {};
  return Array.isArray(env) ? env.map((e) => e.split('=')[0]!) : Object.keys(env);
}

/** The file a command runs: a path token, or the file of an `npm run <script>`. */
function filesOfCommand(command: string[] | string | undefined): string[] {
  const words = typeof command === 'string' ? command.split(/\s+/) : (command ?? []);
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const run = words.indexOf('run');
  if (words[0] === 'npm' && run !== -1) {
    const script = scripts[words[run + 1]!];
    if (script === undefined) return [`<missing npm script ${words[run + 1]}>`];
    return filesOfCommand(script);
  }
  return words.filter((w) => /\.(ts|js|mjs|cjs|sh)$/.test(w));
}

describe('docker-compose.yml', () => {
  it('describes the production topology', () => {
    const names = services.map(([name]) => name);
    expect(names).toEqual(expect.arrayContaining(['postgres', 'kurrentdb', 'kafka', 'opensearch', 'command', 'projector', 'query']));
    expect(compose.services['kafka']!.environment).toMatchObject({ KAFKA_CFG_PROCESS_ROLES: 'controller,broker' }); // KRaft, no ZooKeeper
    expect(names).not.toContain('zookeeper');
    expect(compose.services['projector']!.deploy?.replicas).toBeGreaterThan(1);
    expect(compose.services['query']!.deploy?.replicas).toBeGreaterThan(1);
    expect(ours.map(([name]) => name).sort()).toEqual(['command', 'kafka-bridge', 'projector', 'query']);
  });

  it.each(ours)('%s runs a file of the repo, as the container\u2019s own process (SIGTERM reaches it)', (_name, service) => {
    expect(typeof service.command === 'string' ? service.command.split(/\s+/)[0] : service.command?.[0]).toBe('node');
    const files = filesOfCommand(service.command);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect({ file, exists: existsSync(join(ROOT, file)) }).toEqual({ file, exists: true });
  });

  it.each(ours)('%s sets only variables the code reads', (_name, service) => {
    const read = variablesReadByCode();
    const unread = environmentOf(service).filter((name) => !read.has(name));
    expect(unread).toEqual([]);
  });

  it('sets every variable readConfig reads (but the exempted ones)', () => {
    const seen = new Set<string>();
    readConfig(new Proxy({} as NodeJS.ProcessEnv, { get: (_t, key) => (typeof key === 'string' && seen.add(key), undefined) }));
    expect(seen.size).toBeGreaterThan(4);
    const set = new Set(ours.flatMap(([, s]) => environmentOf(s)));
    const missing = [...seen].filter((name) => !set.has(name) && !(name in EXEMPT));
    expect(missing).toEqual([]);
    // An exemption for a variable readConfig no longer reads is stale.
    for (const name of Object.keys(EXEMPT)) expect(seen).toContain(name);
  });
});
