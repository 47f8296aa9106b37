import { historyArb, runHistory } from '@memotrace/domain/testing/histories';
import type { LogStore } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import fc from 'fast-check';
import type { Pool } from 'pg';

/** A generated memory: its decided event batches (appended in order) and its folded run. */
export interface GeneratedMemory {
  memoryId: string;
  batches: ReturnType<typeof runHistory>['log'][];
  run: ReturnType<typeof runHistory>;
}

/** Random memories (domain histories) totalling at least `commands` accepted commands. */
export function generateMemories(commands: number, prefix: string): GeneratedMemory[] {
  const memories: GeneratedMemory[] = [];
  let total = 0;
  let seed = 1;
  while (total < commands) {
    for (const batches of fc.sample(historyArb, { numRuns: 50, seed: seed++ })) {
      const memoryId = `${prefix}-${memories.length}`;
      const run = runHistory(batches, { memoryId });
      const slices: GeneratedMemory['batches'] = [];
      let from = 0;
      for (const batch of run.batches) {
        if (batch.results === null || batch.logLength === from) continue;
        total += batch.results.length;
        slices.push(run.log.slice(from, batch.logLength));
        from = batch.logLength;
      }
      memories.push({ memoryId, batches: slices, run });
      if (total >= commands) break;
    }
  }
  return memories;
}

/**
 * Appends the memories batch by batch with `writers` concurrent writers (as the command
 * service would), the batches spread evenly over at least `spreadOverMs`.
 */
export async function appendMemories(store: LogStore, memories: readonly GeneratedMemory[], writers = 4, spreadOverMs = 0): Promise<void> {
  const queue = [...memories];
  const interval =
    spreadOverMs /
    Math.max(
      1,
      memories.reduce((n, m) => n + m.batches.length, 0),
    );
  const start = Date.now();
  let sent = 0;
  const writer = async () => {
    for (let m = queue.shift(); m; m = queue.shift()) {
      let revision = -1;
      for (const events of m.batches) {
        const due = start + sent++ * interval;
        if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        const r = await store.append(memoryStreamId(m.memoryId), toNewRecords(m.memoryId, events), {
          expectedRevision: revision < 0 ? 'no_stream' : revision,
        });
        revision = r.nextExpectedRevision;
      }
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
}

/** Rows the read models must hold for these memories: a row too many is an event applied twice. */
export function expectedRowCounts(memories: readonly GeneratedMemory[]): Record<'facts' | 'events' | 'episodes' | 'mentions' | 'entities', number> {
  const expected = { facts: 0, events: 0, episodes: 0, mentions: 0, entities: 0 };
  for (const { run } of memories) {
    for (const fact of run.state.facts.values()) expected.facts += fact.versions.length;
    for (const versions of run.state.events.values()) expected.events += versions.length;
    for (const versions of run.state.episodes.values()) expected.episodes += versions.length;
    expected.mentions += run.state.mentions.size;
    expected.entities += run.state.entities.size;
  }
  return expected;
}

export async function rowCounts(pool: Pool): Promise<ReturnType<typeof expectedRowCounts>> {
  const count = async (table: string) => Number((await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  return {
    facts: await count('rm_fact_versions'),
    events: await count('rm_event_versions'),
    episodes: await count('rm_episode_versions'),
    mentions: await count('rm_mentions'),
    entities: await count('rm_entities'),
  };
}
