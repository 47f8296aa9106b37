import { parseArgs } from 'node:util';
import { instant } from '@memotrace/contracts';
import { type RebuildProgress, rebuildReadModels } from '@memotrace/read-models';
import { openDatabase, readConfig, runMain } from '@memotrace/runtime';

/**
 * npm run rebuild -- --projection read-models [--to 2024-05-01T00:00:00Z] [--keep-old]
 *
 * Rebuilds the read models from the log beside the live tables (DATABASE_URL, or the
 * embedded PostgreSQL in MEMOTRACE_DATA_DIR while `npm start` is not running). To the
 * head: switched in atomically. With --to: a frozen snapshot schema, printed at the end.
 * Progress (events done, rate, ETA) goes to stderr.
 */
const PROJECTIONS = ['read-models', 'facts'];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { projection: { type: 'string', default: 'read-models' }, to: { type: 'string' }, 'keep-old': { type: 'boolean', default: false } },
  });
  if (!PROJECTIONS.includes(values.projection!))
    throw new Error(`unknown projection ${values.projection} (known: ${PROJECTIONS.join(', ')}; facts are in read-models)`);
  let to: string | undefined;
  if (values.to !== undefined) {
    const parsed = instant.safeParse(values.to);
    if (!parsed.success) throw new Error(`--to must be an ISO-8601 instant with an offset, got ${values.to}`);
    to = parsed.data;
  }
  const database = await openDatabase(readConfig(), (m) => process.stderr.write(`${m}\n`));
  try {
    let lastPrint = 0;
    const print = (p: RebuildProgress) => {
      const now = Date.now();
      if (p.phase === 'building' && now - lastPrint < 1000 && p.done < p.total) return;
      lastPrint = now;
      const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
      const eta = p.etaSeconds === null ? '?' : `${p.etaSeconds.toFixed(1)} s`;
      process.stderr.write(`${p.phase} ${p.schema}: ${p.done}/${p.total} events (${pct}%), ${p.eventsPerSecond} events/s, ETA ${eta}\n`);
    };
    const result = await rebuildReadModels({
      pool: database.pool,
      store: database.store,
      ...(to !== undefined ? { to } : {}),
      keepOld: values['keep-old'],
      onProgress: print,
    });
    console.log(JSON.stringify(result));
  } finally {
    await database.close();
  }
}

runMain('memotrace rebuild', main);
