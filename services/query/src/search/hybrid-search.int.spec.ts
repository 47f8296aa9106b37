import { searchResponse } from '@memotrace/contracts';
import { conceptEmbeddings } from '@memotrace/search-index';
import fc from 'fast-check';
import { Client } from 'pg';
import { type TestService, startTestService } from '../../../memotrace/src/testing/test-service';

/**
 * Hybrid search on the whole service: the search-index projection embeds what is
 * recorded (a deterministic concept model stands in for the sentence encoder),
 * and the route fuses BM25 with cosine kNN over the cut's items.
 */
const MON = '2024-05-06T09:00:00.000Z';
const WED_NOON = '2024-05-08T12:00:00.000Z';
const THU = '2024-05-09T10:00:00.000Z';
const M = 'hybrid';
const CONCEPTS = [
  ['car', 'automobile', 'vehicle', 'sedan'],
  ['dog', 'puppy', 'hound'],
  ['guitar', 'music', 'song'],
];

/** The search index's checkpoint and the log head (a write's position counts its memory's events only). */
async function searchIndexProgress(databaseUrl: string): Promise<{ position: number; head: number }> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ position: string | null; head: string | null }>(
      `SELECT (SELECT position FROM rm_checkpoints WHERE projection = 'search-index') AS position, (SELECT max(position) FROM mt_events) AS head`,
    );
    return { position: Number(rows[0]?.position ?? 0), head: Number(rows[0]?.head ?? 0) };
  } finally {
    await db.end();
  }
}

async function waitForSearchIndex(t: TestService): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (let p = await searchIndexProgress(t.service.databaseUrl); p.position < p.head; p = await searchIndexProgress(t.service.databaseUrl)) {
    if (Date.now() > deadline) throw new Error('search index did not catch up');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('hybrid search (search-index projection + POST .../search)', () => {
  let t: TestService;
  const provider = conceptEmbeddings(CONCEPTS);
  const search = async (body: unknown) => {
    const response = await t.post(`/v1/memories/${M}/search`, body);
    expect(response.status).toBe(200);
    expect(searchResponse.safeParse(response.body).error).toBeUndefined();
    return response.body as { items: { kind: string; id: string; tokens: number; recordedFrom: string }[]; tokens: number; unembedded?: number };
  };

  beforeAll(async () => {
    t = await startTestService({}, { embeddings: provider });
    const monday = await t.commands(M, [
      {
        op: 'RECORD_MENTION',
        mentionId: 'm-auto',
        docId: 'chat',
        text: 'I finally bought an automobile',
        speaker: 'Ann',
        occurredAt: MON,
        recordedAt: MON,
      },
      {
        op: 'RECORD_MENTION',
        mentionId: 'm-pup',
        docId: 'chat',
        text: 'Our puppy chewed my shoes',
        speaker: 'Ann',
        occurredAt: MON,
        recordedAt: MON,
      },
      { op: 'RECORD_MENTION', mentionId: 'm-song', docId: 'other', text: 'I wrote a song today', speaker: 'Ann', occurredAt: MON, recordedAt: MON },
    ]);
    expect(monday.status).toBe(200);
    // Thursday: matches "car" best of all by its vector, but is recorded after the Wednesday cut.
    const thursday = await t.commands(M, [
      {
        op: 'RECORD_MENTION',
        mentionId: 'm-sedan',
        docId: 'chat-2',
        text: 'car car: the sedan vehicle',
        speaker: 'Ann',
        occurredAt: THU,
        recordedAt: THU,
      },
    ]);
    expect(thursday.status).toBe(200);
    await waitForSearchIndex(t);
  });
  afterAll(() => t.stop());

  it('the projection stores one vector per distinct text, checkpointed with its writes', async () => {
    const db = new Client({ connectionString: t.service.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM si_vectors WHERE model = 'test-concepts'`);
      expect(rows[0]!.n).toBe(4);
      const items = await db.query<{ item_id: string }>(`SELECT item_id FROM si_items WHERE memory_id = $1 ORDER BY item_id`, [M]);
      expect(items.rows.map((r) => r.item_id)).toEqual(['m-auto', 'm-pup', 'm-sedan', 'm-song']);
    } finally {
      await db.end();
    }
  });

  it('finds by meaning what shares no word with the query (vector recall)', async () => {
    const body = await search({ query: 'my car', recordedAt: THU, validAt: THU });
    expect(body.unembedded).toBe(0);
    expect(
      body.items
        .map((i) => i.id)
        .slice(0, 2)
        .sort(),
    ).toEqual(['m-auto', 'm-sedan']);
    expect(body.items.map((i) => i.id)).not.toContain('m-song');
  });

  it('never returns, through vectors or expansion, what was recorded after the cut', async () => {
    const body = await search({ query: 'car vehicle sedan', recordedAt: WED_NOON, validAt: WED_NOON });
    expect(body.items.map((i) => i.id)).toContain('m-auto');
    expect(body.items.every((i) => i.recordedFrom <= WED_NOON)).toBe(true);
    expect(body.items.map((i) => i.id)).not.toContain('m-sedan');
  });

  it('never exceeds a random token budget (random budgets and queries)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60 }),
        fc.constantFrom('car', 'puppy song', 'automobile shoes', 'music dog car'),
        async (budget, query) => {
          const body = await search({ query, tokenBudget: budget, recordedAt: THU, validAt: THU });
          expect(body.tokens).toBeLessThanOrEqual(budget);
          expect(body.tokens).toBe(body.items.reduce((sum, i) => sum + i.tokens, 0));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('never waits for the embedder: what has no vector yet is ranked by BM25 and counted', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const QUERY = 'automobile';
    const logTexts = new Set(['I bought an automobile', 'the sedan is red']);
    // The log's texts wait until released; the query's own vector (and the model's warm-up) come at once.
    const slow = {
      model: provider.model,
      embed: async (texts: readonly string[]) => (logTexts.has(texts[0]!) ? released.then(() => provider.embed(texts)) : provider.embed(texts)),
    };
    const held = await startTestService({}, { embeddings: slow });
    try {
      const turns = [
        { op: 'RECORD_MENTION', mentionId: 'm1', docId: 'd', text: 'I bought an automobile', recordedAt: MON },
        { op: 'RECORD_MENTION', mentionId: 'm2', docId: 'e', text: 'the sedan is red', recordedAt: MON },
      ];
      expect((await held.commands(M, turns)).status).toBe(200);
      const before = await held.post(`/v1/memories/${M}/search`, { query: QUERY, recordedAt: THU });
      expect(before.status).toBe(200);
      expect(before.body).toMatchObject({ unembedded: 2, items: [{ id: 'm1' }] });
      expect(before.body.items).toHaveLength(1); // "sedan" shares no word with the query: only a vector finds it
      release();
      await waitForSearchIndex(held);
      const after = await held.post(`/v1/memories/${M}/search`, { query: QUERY, recordedAt: THU });
      expect(after.body.unembedded).toBe(0);
      expect(after.body.items.map((i: { id: string }) => i.id).sort()).toEqual(['m1', 'm2']);
    } finally {
      release();
      await held.stop();
    }
  });

  it('falls back to BM25 when the embeddings provider fails', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const broken = await startTestService({}, { embeddings: { model: 'broken', embed: () => Promise.reject(new Error('model cannot load')) } });
    try {
      expect(
        (await broken.commands(M, [{ op: 'RECORD_MENTION', mentionId: 'm1', docId: 'd', text: 'I bought an automobile', recordedAt: MON }])).status,
      ).toBe(200);
      const response = await broken.post(`/v1/memories/${M}/search`, { query: 'automobile', recordedAt: THU, validAt: THU });
      expect(response.status).toBe(200);
      expect(response.body.items.map((i: { id: string }) => i.id)).toEqual(['m1']);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('BM25 only'));
    } finally {
      warn.mockRestore();
      await broken.stop();
    }
  });
});
