import type { QueryRunner } from './queries';
import { Rng } from './rng';

/**
 * Search on ONE large memory (issue 7: "search p95 under 30 ms on a memory of
 * 100,000 items"): `items` items, half dialog turns (RECORD_MENTION) and half facts
 * evidenced by them (UPSERT_EDGE), written through the public API in batches of
 * 1,000, then searched As-World now. The first search loads the memory's search
 * corpus (timed alone, "cold"); the others are timed as `search:large`.
 */
export interface LargeSearchFigures {
  items: number;
  coldServerMs: number;
  ingestSeconds: number;
}

const MEMORY = 'search-large';
const RELATIONS = ['knows', 'likes', 'works_with', 'visited', 'mentioned'];

/** Pseudo-words with a skewed frequency (low indices common), so queries mix rare and common terms. */
function vocabulary(rng: Rng, size: number): string[] {
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qui', 'dor', 'ban', 'tel', 'gro'];
  return Array.from({ length: size }, () => Array.from({ length: rng.between(2, 4) }, () => rng.pick(syllables)).join(''));
}

export async function searchLargeMemory(url: string, runner: QueryRunner, items: number, queries: number, seed: number): Promise<LargeSearchFigures> {
  const rng = new Rng(seed);
  const words = vocabulary(rng, 5000);
  const word = () => words[Math.floor(words.length * rng.next() ** 3)]!;
  const entities = Math.max(10, Math.round(items / 50));
  const post = async (commands: unknown[]): Promise<number> => {
    const response = await fetch(`${url}/v1/memories/${MEMORY}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ commands }),
    });
    const body = (await response.json()) as { position: number };
    if (response.status !== 200) throw new Error(`search memory ingest: HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    return body.position;
  };
  const t0 = performance.now();
  for (let e = 0; e < entities; e += 1000) {
    await post(
      Array.from({ length: Math.min(1000, entities - e) }, (_, i) => ({
        op: 'UPSERT_ENTITY',
        entityId: `p${e + i}`,
        name: `${word()} ${word()}`.replace(/^./, (c) => c.toUpperCase()),
      })),
    );
  }
  let position = 0;
  for (let n = 0; n < items / 2; n += 500) {
    const batch: unknown[] = [];
    for (let i = n; i < Math.min(n + 500, items / 2); i++) {
      const turn = `D${Math.floor(i / 25)}:${i % 25}`;
      const text = Array.from({ length: rng.between(6, 24) }, word).join(' ');
      batch.push({ op: 'RECORD_MENTION', mentionId: turn, docId: `D${Math.floor(i / 25)}`, speaker: `p${rng.int(entities)}`, text });
      batch.push({ op: 'UPSERT_EDGE', src: `p${rng.int(entities)}`, rel: rng.pick(RELATIONS), dst: `p${rng.int(entities)}`, evidence: [turn] });
    }
    position = await post(batch);
  }
  const ingestSeconds = (performance.now() - t0) / 1000;
  const caughtUp = await fetch(`${url}/v1/memories/${MEMORY}/facts?src=p0&minPosition=${position}`);
  if (caughtUp.status !== 200) throw new Error(`search memory: read models did not catch up (HTTP ${caughtUp.status})`);
  const question = () => `what did ${word()} say about ${word()} and ${word()}?`;
  const coldServerMs = await runner.search(MEMORY, question(), 'search:cold');
  for (let q = 0; q < queries; q++) await runner.search(MEMORY, question(), 'search:large');
  return { items, coldServerMs, ingestSeconds };
}
