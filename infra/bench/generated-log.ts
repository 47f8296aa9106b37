import { type Command, type MemoryRecord, decideBatch, initialState } from '@memotrace/domain';

const PER_APPEND = 1_000;
const ENTITIES = 100;

/** A memory's log: entities, a `many` relation, then UPSERT_EDGE facts (one event each), decided in batches. */
export function* memoryBatches(memoryId: string, events: number): Generator<MemoryRecord[]> {
  const state = initialState();
  const decide = (commands: Command[], now: string) => {
    // decideBatch evolves the state as it decides (see runHistory).
    return decideBatch(memoryId, state, commands, now).records;
  };
  let at = Date.UTC(2024, 0, 1);
  const now = () => new Date((at += 1000)).toISOString();
  yield decide(
    [
      { op: 'DEFINE_RELATION', commandId: 'rel', rel: 'knows', cardinality: 'many' } as Command,
      ...Array.from(
        { length: ENTITIES },
        (_, i) => ({ op: 'UPSERT_ENTITY', commandId: `ent-${i}`, entityId: `e${i}`, name: `Entity ${i}` }) as Command,
      ),
    ],
    now(),
  );
  let written = ENTITIES + 1;
  let n = 0;
  while (written < events) {
    const size = Math.min(PER_APPEND, events - written);
    const commands = Array.from({ length: size }, () => {
      n += 1;
      return {
        op: 'UPSERT_EDGE',
        commandId: `c${n}`,
        factId: `f${n}`,
        src: `e${n % ENTITIES}`,
        rel: 'knows',
        dst: `e${(n * 7 + 3) % ENTITIES}`,
        validFrom: new Date(Date.UTC(2023, 0, 1) + n * 60_000).toISOString(),
      } as Command;
    });
    const decided = decide(commands, now());
    written += decided.length;
    yield decided;
  }
}
