import { parentPort, workerData } from 'node:worker_threads';
import { PostgresLogStore } from '@memotrace/log-store';
import { OpeningLogStore } from '@memotrace/memory-log';
import { CachingKeyStore, PostgresSubjectKeyStore } from '@memotrace/subject-keys';
import { createPool } from '@memotrace/postgres';
import { rebuildReadModels } from '@memotrace/read-models';
import type { RebuildWorkerData, RebuildWorkerMessage } from './rebuild-job';

/**
 * The body of the rebuild thread (started by RebuildJob through rebuild-worker.cjs): its own
 * pool on the service's database, the rebuild, and its progress and outcome posted back.
 */
async function run(): Promise<void> {
  const { databaseUrl, masterKey, to } = workerData as RebuildWorkerData;
  const post = (message: RebuildWorkerMessage) => parentPort!.postMessage(message);
  const pool = createPool(databaseUrl);
  const store = new OpeningLogStore(new PostgresLogStore(pool), new CachingKeyStore(new PostgresSubjectKeyStore(pool, Buffer.from(masterKey))));
  try {
    const result = await rebuildReadModels({ pool, store, ...(to !== null ? { to } : {}), onProgress: (progress) => post({ progress }) });
    post({ result });
  } catch (error) {
    post({ error: (error as Error).message });
  } finally {
    await store.close();
    await pool.end();
  }
}

void run();
