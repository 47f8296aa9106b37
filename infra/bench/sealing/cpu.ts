import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type pg from 'pg';

/** CPU seconds spent during a piece of work: this Node process's, and the PostgreSQL backends' of some databases. */
export interface CpuSpent {
  node: number;
  /** Null when the server's processes cannot be read (another machine). */
  postgres: number | null;
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User and system CPU seconds of a process so far; null when it cannot be read. */
function processCpu(pid: number): number | null {
  try {
    // After the command name (which may hold spaces): state is field 3, utime and stime fields 14 and 15.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * Measures what `work` costs in CPU: Node's own (process.cpuUsage) and that of the backends serving
 * `databases` (a backend that connected during the work counts whole). Less sensitive to other load on
 * the machine than elapsed time, though not immune (shared caches, frequency).
 */
export async function cpuOf<T>(
  pool: Pick<pg.Pool, 'query'>,
  databases: readonly string[],
  work: () => Promise<T>,
): Promise<{ result: T; cpu: CpuSpent }> {
  const backends = async () => {
    const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = ANY($1)', [databases]);
    return new Map(rows.map((row) => [row.pid, processCpu(row.pid)]));
  };
  const before = await backends();
  const node = process.cpuUsage();
  const result = await work();
  const nodeSpent = process.cpuUsage(node);
  const after = await backends();
  let postgres: number | null = 0;
  for (const [pid, spent] of after) {
    if (spent === null) {
      postgres = null;
      break;
    }
    postgres += spent - (before.get(pid) ?? 0);
  }
  return { result, cpu: { node: (nodeSpent.user + nodeSpent.system) / 1e6, postgres } };
}
