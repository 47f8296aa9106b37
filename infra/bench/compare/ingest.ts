import { setImmediate } from 'node:timers/promises';
import { postCommands, readYourWrites } from './http';
import { type CpuFigures, cpuSince } from './resources';
import { type CompareShape, type WorkloadSample, workloadBatches } from './workload';

export interface IngestFigures {
  /** The timed edge commands (the setup before them is not timed). */
  commands: number;
  batches: number;
  setupSeconds: number;
  /** First edge batch sent to last response. */
  appendSeconds: number;
  /** First edge batch sent to read-your-writes answered for the last one. */
  projectedSeconds: number;
  /** The memory's position after the last batch. */
  position: number;
  /** CPU seconds from the first edge batch to read-your-writes: the service, PostgreSQL, other children. */
  cpu: CpuFigures;
}

/**
 * One client, batches in sequence: the setup (relations, entities) first, awaited by
 * read-your-writes so the read models start the timed part idle, then the edges, then
 * read-your-writes for the last batch.
 */
export async function ingest(
  url: string,
  shape: CompareShape,
  sample: WorkloadSample,
  cpu: () => CpuFigures,
  log: (line: string) => void,
): Promise<IngestFigures> {
  const probe = () => sample.entities.find((e) => e.type === 'person')!.id;
  let position = 0;
  let commands = 0;
  let batches = 0;
  const setupStart = performance.now();
  let t0 = Number.NaN;
  let cpu0: CpuFigures | undefined;
  let lastLog = Date.now();
  const generator = workloadBatches(shape, sample);
  for (let next = generator.next(); !next.done;) {
    const { edges, commands: batch } = next.value;
    if (edges && Number.isNaN(t0)) {
      await readYourWrites(url, shape.memoryId, probe(), position);
      t0 = performance.now();
      cpu0 = cpu();
    }
    const response = postCommands(url, shape.memoryId, batch);
    response.catch(() => undefined); // handled below, by the await
    // The next batch is generated while this one is in flight (once the request is on its way).
    await setImmediate();
    next = generator.next();
    position = await response;
    if (!edges) continue;
    commands += batch.length;
    batches += 1;
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`   ingest: ${commands.toLocaleString('en')} commands, ${sample.versions.toLocaleString('en')} versions generated`);
    }
  }
  const appendEnd = performance.now();
  await readYourWrites(url, shape.memoryId, probe(), position);
  const projectedEnd = performance.now();
  return {
    commands,
    batches,
    setupSeconds: (t0 - setupStart) / 1000,
    appendSeconds: (appendEnd - t0) / 1000,
    projectedSeconds: (projectedEnd - t0) / 1000,
    position,
    cpu: cpuSince(cpu0!, cpu()),
  };
}
