import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { KEY_BYTES } from './subject-key-store';

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
// 32 bytes in base64 (or base64url): 43 characters and one '=' of padding, which may be left off.
const BASE64_KEY = /^[A-Za-z0-9+/_-]{42}[AEIMQUYcgkosw048]=?$/;
const EXPECTED_FORM = `${KEY_BYTES} bytes as base64 (44 characters) or hex (64 characters)`;

/** Name of the file holding the master key in the data directory. */
export const MASTER_KEY_FILE = 'master.key';

/**
 * The master key that wraps subject keys: `MEMOTRACE_MASTER_KEY` (base64 or hex of 32 bytes), else
 * the file named by `MEMOTRACE_MASTER_KEY_FILE`, else `master.key` in the data directory (created on
 * first use), else null: the caller then falls back to databaseMasterKey.
 */
export function masterKeyFrom(env: NodeJS.ProcessEnv, dataDir: string | undefined): Buffer | null {
  const inline = env.MEMOTRACE_MASTER_KEY?.trim();
  if (inline) return parseMasterKey(inline, 'MEMOTRACE_MASTER_KEY');

  const keyFile = env.MEMOTRACE_MASTER_KEY_FILE?.trim();
  if (keyFile) {
    let text: string;
    try {
      text = readFileSync(keyFile, 'utf8');
    } catch (error) {
      throw new Error(`MEMOTRACE_MASTER_KEY_FILE: cannot read ${keyFile}: ${(error as Error).message}`);
    }
    return parseMasterKey(text.trim(), `MEMOTRACE_MASTER_KEY_FILE (${keyFile})`);
  }

  if (dataDir === undefined) return null;
  const path = join(dataDir, MASTER_KEY_FILE);
  mkdirSync(dataDir, { recursive: true });
  try {
    // 'wx' fails when the file exists: two processes starting at once keep the first one's key.
    writeFileSync(path, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseMasterKey(readFileSync(path, 'utf8').trim(), path);
}

function parseMasterKey(text: string, source: string): Buffer {
  // The value is a secret: the message names where it came from and the form, never the value.
  if (HEX_KEY.test(text)) return Buffer.from(text, 'hex');
  if (BASE64_KEY.test(text)) {
    const key = Buffer.from(text, 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new Error(`${source} must hold a master key of ${EXPECTED_FORM}, e.g. the output of: openssl rand -base64 32`);
}

/**
 * The master key kept in the database (table mt_master_key, see subjectKeyMigrations), for a service
 * on an external database with no key configured. Created once: concurrent first callers insert
 * their own candidates, one wins, and all of them read the winner back.
 */
export async function databaseMasterKey(pool: Pick<pg.Pool, 'query'>): Promise<Buffer> {
  await pool.query('INSERT INTO mt_master_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [randomBytes(KEY_BYTES)]);
  const { rows } = await pool.query<{ key: Buffer }>('SELECT key FROM mt_master_key WHERE id = 1');
  const key = rows[0]?.key;
  if (!key || key.length !== KEY_BYTES) throw new Error(`mt_master_key holds no ${KEY_BYTES}-byte master key`);
  return key;
}
