import { memoryStreamId } from '@memotrace/memory-log';
import { READ_MODELS_PROJECTION } from '@memotrace/read-models';
import { projectedPosition } from '@memotrace/projection';
import type { Pool } from 'pg';
import { type MemorySample, type ScaleShape, emptySample, memoryBatches } from './workload';

export interface IngestResult {
  samples: MemorySample[];
  commands: number;
  versions: number;
  /** Log position of the last event the clients got a response for. */
  headPosition: number;
  appendSeconds: number;
  /** CPU time of the service process while the clients appended, and until the read models caught up. */
  appendCpuSeconds: number;
  projectedCpuSeconds: number;
  /** From the first command until the read models had every appended event. */
  projectedSeconds: number;
  /** Time from a command's response until the read models had its position. */
  lagMs: number[];
  /** Events between the log head seen by clients and the projected checkpoint, sampled. */
  lagRecords: number[];
  peakRssBytes: number;
}

const LAG_POLL_MS = 50;

/**
 * Sends every memory's batches through `POST /v1/memories/{id}/commands`, `clients`
 * writers in parallel (each owns every clients-th memory), while a sampler polls the
 * projected checkpoint to measure projection lag.
 */
export async function ingest(
  url: string,
  pool: Pool,
  shape: ScaleShape,
  clients: number,
  server: { rssBytes(): number; cpuSeconds(): number },
  onProgress: (done: number) => void,
): Promise<IngestResult> {
  const samples = Array.from({ length: shape.memories }, (_, m) => emptySample(`scale-${String(m).padStart(3, '0')}`));
  // Responses carry the memory's position (its log's length); the checkpoint is a log position.
  const responses: Array<{ memoryId: string; position: number; at: number }> = [];
  const pending: Array<{ position: number; at: number }> = [];
  const lagMs: number[] = [];
  const lagRecords: number[] = [];
  let head = 0;
  let commands = 0;
  let peakRss = 0;
  let writing = true;
  const t0 = performance.now();
  const cpu0 = server.cpuSeconds();
  let appendCpu = cpu0;

  const sampler = (async () => {
    while (writing || pending.length > 0 || responses.length > 0) {
      for (const r of await logPositions(pool, responses.splice(0))) {
        head = Math.max(head, r.position);
        pending.push(r);
      }
      const projected = await projectedPosition(pool, READ_MODELS_PROJECTION);
      const now = performance.now();
      if (writing) lagRecords.push(Math.max(0, head - projected));
      pending.sort((a, b) => a.position - b.position);
      while (pending.length > 0 && pending[0]!.position <= projected) lagMs.push(now - pending.shift()!.at);
      peakRss = Math.max(peakRss, server.rssBytes());
      if (!writing && pending.length === 0 && responses.length === 0) break;
      await new Promise((r) => setTimeout(r, LAG_POLL_MS));
    }
    return performance.now();
  })();

  let appendEnd = t0;
  const writer = async (client: number) => {
    for (let m = client; m < shape.memories; m += clients) {
      const sample = samples[m]!;
      let n = 0;
      for (const batch of memoryBatches(shape, m, sample)) {
        const response = await fetch(`${url}/v1/memories/${sample.memoryId}/commands`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ commands: batch.map((c) => ({ ...c, commandId: `${sample.memoryId}-${n++}` })) }),
        });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`POST commands to ${sample.memoryId}: HTTP ${response.status} ${text.slice(0, 500)}`);
        const body = JSON.parse(text) as { position: number; results: Array<{ status: string }> };
        const notApplied = body.results.find((r) => r.status !== 'applied');
        if (notApplied) throw new Error(`a generated command was not applied in ${sample.memoryId}: ${JSON.stringify(notApplied)}`);
        commands += batch.length;
        responses.push({ memoryId: sample.memoryId, position: body.position, at: performance.now() });
        onProgress(commands);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(clients, shape.memories) }, (_, c) => writer(c)));
    appendEnd = performance.now();
    appendCpu = server.cpuSeconds();
  } catch (error) {
    pending.length = responses.length = 0; // nothing to wait for: stop the sampler and report the error
    throw error;
  } finally {
    writing = false;
    if (pending.length === 0 && responses.length === 0) await sampler.catch(() => undefined);
  }
  const projectedEnd = await sampler;
  const projectedCpu = server.cpuSeconds();
  return {
    samples,
    commands,
    versions: samples.reduce((sum, s) => sum + s.versions, 0),
    headPosition: head,
    appendSeconds: (appendEnd - t0) / 1000,
    projectedSeconds: (projectedEnd - t0) / 1000,
    appendCpuSeconds: appendCpu - cpu0,
    projectedCpuSeconds: projectedCpu - cpu0,
    lagMs,
    lagRecords,
    peakRssBytes: peakRss,
  };
}

/** The log position of each response's last event (the memory's event number `position`). */
async function logPositions(
  pool: Pool,
  responses: ReadonlyArray<{ memoryId: string; position: number; at: number }>,
): Promise<Array<{ position: number; at: number }>> {
  if (responses.length === 0) return [];
  const { rows } = await pool.query<{ i: string; position: string }>(
    `SELECT k.i, e.position FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS k(stream_id, revision, i)
       JOIN mt_events e ON e.stream_id = k.stream_id AND e.revision = k.revision`,
    [responses.map((r) => memoryStreamId(r.memoryId)), responses.map((r) => r.position - 1)],
  );
  return rows.map((row) => ({ position: Number(row.position), at: responses[Number(row.i) - 1]!.at }));
}
