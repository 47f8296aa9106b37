import type { Pool } from 'pg';
import { postCommands, readYourWrites } from './http';
import { logPositions, readModelsAt } from './positions';
import { sustainedBatches, sustainedSetup } from './workload';

export interface SustainedFigures {
  targetPerSecond: number;
  /** Commands the responses acknowledged, over the time from the first send to the last response. */
  achievedPerSecond: number;
  commands: number;
  seconds: number;
  /** Per batch: its response until the read models' checkpoint passed its last event. */
  lagMs: number[];
  /** Batches sent later than their slot because too many were still in flight. */
  lateBatches: number;
}

const MEMORY = 'compare-sustained';
const ENTITIES = 500;
const MAX_IN_FLIGHT = 16;
const POLL_MS = 25;
const DRAIN_TIMEOUT_MS = 600_000;

/**
 * A steady write rate into a second memory: batches sent on a fixed schedule (rate ÷
 * batch size per second), several in flight when the service answers slower than the
 * schedule, while a sampler polls the read models' checkpoint to time each batch's lag.
 */
export async function sustainedRate(
  url: string,
  pool: Pool,
  options: { perSecond: number; seconds: number; batchSize: number; seed: number },
): Promise<SustainedFigures> {
  let position = 0;
  for (const batch of sustainedSetup(MEMORY, ENTITIES, options.batchSize)) position = await postCommands(url, MEMORY, batch);
  await readYourWrites(url, MEMORY, 'person-0', position);

  const total = Math.round((options.perSecond * options.seconds) / options.batchSize);
  const intervalMs = (1000 * options.batchSize) / options.perSecond;
  const responses: Array<{ position: number; at: number }> = [];
  const pending: Array<{ logPosition: number; at: number }> = [];
  const lagMs: number[] = [];
  const batches = sustainedBatches(MEMORY, ENTITIES, options.batchSize, options.seed);
  const inFlight = new Set<Promise<void>>();
  let sending = true;
  let failure: unknown;
  let commands = 0;
  let lateBatches = 0;
  const t0 = performance.now();
  let lastResponse = t0;

  const sampler = (async () => {
    while (failure === undefined && (sending || responses.length > 0 || pending.length > 0)) {
      const fresh = responses.splice(0);
      const positions = await logPositions(
        pool,
        MEMORY,
        fresh.map((r) => r.position),
      );
      fresh.forEach((r, i) => pending.push({ logPosition: positions[i]!, at: r.at }));
      const projected = await readModelsAt(pool);
      const now = performance.now();
      pending.sort((a, b) => a.logPosition - b.logPosition);
      while (pending.length > 0 && pending[0]!.logPosition <= projected) lagMs.push(now - pending.shift()!.at);
      if (!sending && now - lastResponse > DRAIN_TIMEOUT_MS) throw new Error(`the read models did not catch up within ${DRAIN_TIMEOUT_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  })().catch((error: unknown) => {
    failure ??= error;
  });

  try {
    for (let i = 0; i < total && failure === undefined; i++) {
      const slot = t0 + i * intervalMs;
      const wait = slot - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
      if (performance.now() - slot > intervalMs) lateBatches += 1;
      const batch = batches.next().value!;
      const sent: Promise<void> = postCommands(url, MEMORY, batch).then(
        (p) => {
          lastResponse = performance.now();
          responses.push({ position: p, at: lastResponse });
          commands += batch.length;
          inFlight.delete(sent);
        },
        (error: unknown) => {
          failure ??= error;
          inFlight.delete(sent);
        },
      );
      inFlight.add(sent);
    }
    await Promise.all(inFlight);
  } finally {
    sending = false;
  }
  const seconds = (lastResponse - t0) / 1000;
  await sampler;
  if (failure !== undefined) throw failure;
  return { targetPerSecond: options.perSecond, achievedPerSecond: commands / seconds, commands, seconds, lagMs, lateBatches };
}
