import { wireCommand } from '@memotrace/contracts';
import { deriveEntityId } from '@memotrace/domain';
import type { Derived, ExtractionInput, KnownEntity, Turn } from '../port';
import { createRulesExtractor } from './extractor';

const MEMORY = 'm-rules';
const AT = '2024-03-13T18:00:00.000Z';

function turns(lines: [string, string][], at = AT, session = 's1'): Turn[] {
  return lines.map(([speaker, text], i) => ({ mentionId: `${session}-t${i}`, sessionId: session, speaker, text, at }));
}

function input(t: Turn[], entities: KnownEntity[] = []): ExtractionInput {
  return { memoryId: MEMORY, turns: t, window: [], entities };
}

const extract = (i: ExtractionInput) => createRulesExtractor().extract(i);

function ops<Op extends Derived['command']['op']>(derived: Derived[], op: Op): Extract<Derived['command'], { op: Op }>[] {
  return derived.map((d) => d.command).filter((c): c is Extract<Derived['command'], { op: Op }> => c.op === op);
}

const DIALOG: [string, string][] = [
  ['Priya', 'I live in Lisbon and I work at Acme Robotics as a test engineer.'],
  ['Omar', 'Thanks so much!'],
  ['Priya', 'Yesterday I ran my first half marathon in Boston with my brother Tom, it was brutal but I finished in under two hours.'],
  ['Omar', 'Next month I am going to adopt a puppy from the shelter near my place, I already picked a name for him.'],
  ['Omar', 'In 2022 I finished my degree in marine biology at the University of Leeds.'],
  ['Omar', 'Last Saturday we hiked up Mount Tamalpais with my sister Leila and her kids.'],
];

describe('rules extractor', () => {
  it('names itself rules@1.3.0', () => {
    const extractor = createRulesExtractor();
    expect([extractor.name, extractor.version]).toEqual(['rules', '1.3.0']);
  });

  it('derives first-person relations as facts with evidence and confidence', async () => {
    const derived = await extract(input(turns(DIALOG)));
    const priya = deriveEntityId(MEMORY, 'Priya');
    const edges = ops(derived, 'UPSERT_EDGE');
    const livesIn = edges.find((e) => e.rel === 'lives_in');
    expect(livesIn).toMatchObject({ src: priya, dst: deriveEntityId(MEMORY, 'Lisbon'), evidence: ['s1-t0'] });
    expect(livesIn?.confidence).toBeGreaterThanOrEqual(0.5);
    expect(edges.find((e) => e.rel === 'works_at')).toMatchObject({ src: priya, dst: deriveEntityId(MEMORY, 'Acme Robotics') });
    expect(edges.find((e) => e.rel === 'has_family' && e.src === priya)).toMatchObject({ dst: deriveEntityId(MEMORY, 'Tom'), evidence: ['s1-t2'] });
    expect(edges.find((e) => e.rel === 'plans')?.dst).toMatchObject({ literal: expect.stringContaining('adopt a puppy') });
    const relations = ops(derived, 'DEFINE_RELATION');
    expect(relations).toEqual(
      expect.arrayContaining([
        { op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one' },
        { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one' },
      ]),
    );
    for (const d of derived) {
      expect(d.turns.length).toBeGreaterThan(0);
      expect(d.why).toBeTruthy();
      expect(d.confidence).toBeGreaterThanOrEqual(0);
      expect(d.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('derives events whose time span resolves the turn’s own words against its `at`', async () => {
    const derived = await extract(input(turns(DIALOG)));
    const events = ops(derived, 'UPSERT_EVENT');
    const span = (words: string) => events.find((e) => e.summary.includes(words))?.timeSpan;
    expect(span('half marathon')).toEqual({ from: '2024-03-12T00:00:00.000Z', to: '2024-03-13T00:00:00.000Z' });
    expect(span('adopt a puppy')).toEqual({ from: '2024-04-01T00:00:00.000Z', to: '2024-05-01T00:00:00.000Z' });
    expect(span('marine biology')).toEqual({ from: '2022-01-01T00:00:00.000Z', to: '2023-01-01T00:00:00.000Z' });
    expect(span('Mount Tamalpais')).toEqual({ from: '2024-03-09T00:00:00.000Z', to: '2024-03-10T00:00:00.000Z' });
    const marathon = events.find((e) => e.summary.includes('half marathon'))!;
    expect(marathon.participants).toEqual(
      expect.arrayContaining([
        { entityId: deriveEntityId(MEMORY, 'Priya'), role: 'speaker' },
        { entityId: deriveEntityId(MEMORY, 'Tom'), role: 'participant' },
        { entityId: deriveEntityId(MEMORY, 'Boston'), role: 'place' },
      ]),
    );
  });

  it('links every event to its turn through a fact derived before it that cites the turn', async () => {
    const derived = await extract(input(turns(DIALOG)));
    derived.forEach((d, i) => {
      if (d.command.op !== 'UPSERT_EVENT') return;
      expect(d.command.includesFacts.length).toBeGreaterThan(0);
      for (const factId of d.command.includesFacts) {
        const fact = derived.slice(0, i).find((e) => e.command.op === 'UPSERT_EDGE' && e.command.factId === factId);
        expect(fact).toBeDefined();
        expect(fact!.command.op === 'UPSERT_EDGE' && fact!.command.evidence).toEqual(d.turns);
        expect(fact!.confidence).toBeGreaterThanOrEqual(d.confidence);
      }
    });
  });

  it('derives that the speaker told it, holding at the instant of the telling only', async () => {
    const derived = await extract(input(turns(DIALOG)));
    const told = ops(derived, 'UPSERT_EDGE').filter((e) => e.rel === 'told');
    expect(told.length).toBe(ops(derived, 'UPSERT_EVENT').length);
    for (const fact of told) expect([fact.validFrom, fact.validTo]).toEqual([AT, '2024-03-13T18:00:00.001Z']);
    // Relations the turn states hold from then on.
    expect(ops(derived, 'UPSERT_EDGE').find((e) => e.rel === 'lives_in')?.validTo).toBeUndefined();
  });

  it('creates every entity before the commands naming it, with a confidence at least theirs', async () => {
    const known: KnownEntity = { entityId: 'ent_known_leeds', name: 'University of Leeds', aliases: [], types: ['organization'] };
    const derived = await extract(input(turns(DIALOG), [known]));
    const created = new Map<string, number>([[known.entityId, 1]]);
    for (const d of derived) {
      const c = d.command;
      if (c.op === 'UPSERT_ENTITY') created.set(c.entityId ?? deriveEntityId(MEMORY, c.name), d.confidence);
      const named =
        c.op === 'UPSERT_EDGE'
          ? [c.src, ...(typeof c.dst === 'string' ? [c.dst] : [])]
          : c.op === 'UPSERT_EVENT'
            ? (c.participants ?? []).map((p) => p.entityId)
            : [];
      for (const id of named) {
        expect(created.has(id)).toBe(true);
        expect(created.get(id)!).toBeGreaterThanOrEqual(d.confidence);
      }
    }
    // A known entity is named by its id, never created again.
    expect(ops(derived, 'UPSERT_ENTITY').map((e) => e.name)).not.toContain('University of Leeds');
    const leeds = ops(derived, 'UPSERT_EVENT').find((e) => e.summary.includes('marine biology'))!;
    expect(leeds.participants).toContainEqual({ entityId: 'ent_known_leeds', role: 'organization' });
  });

  it('gives a move a new fact of the `one` relation lives_in, valid from the move, so the DSL supersedes the old one', async () => {
    const first = await extract(
      input(turns([['Priya', 'I live in Lisbon with two roommates and a very loud parrot.']], '2024-01-10T09:00:00.000Z', 's1')),
    );
    const later = await extract(
      input(turns([['Priya', 'Big news: I moved to Porto last month, the new flat is right by the river.']], '2024-03-13T18:00:00.000Z', 's2')),
    );
    const before = ops(first, 'UPSERT_EDGE').find((e) => e.rel === 'lives_in')!;
    const after = ops(later, 'UPSERT_EDGE').find((e) => e.rel === 'lives_in')!;
    expect(ops(later, 'DEFINE_RELATION')).toContainEqual({ op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one' });
    expect(after.src).toBe(before.src);
    expect(after.dst).toBe(deriveEntityId(MEMORY, 'Porto'));
    expect(after.dst).not.toBe(before.dst);
    expect(after.factId).not.toBe(before.factId);
    expect(after.validFrom).toBe('2024-02-01T00:00:00.000Z');
    expect(after.validFrom! > before.validFrom!).toBe(true);
  });

  it('resolves a speaker to a known entity by alias, and only suggests a merge for a near-duplicate', async () => {
    const known: KnownEntity = { entityId: 'ent_known_priya', name: 'Priya Raman', aliases: ['Pri'], types: ['person'] };
    const line = 'Yesterday I repaired the fence in the garden with my neighbour and we planted three apple trees.';
    const byAlias = await extract(input(turns([['Pri', line]]), [known]));
    expect(ops(byAlias, 'UPSERT_ENTITY').map((e) => e.name)).not.toContain('Pri');
    expect(ops(byAlias, 'UPSERT_EVENT')[0]?.participants).toContainEqual({ entityId: 'ent_known_priya', role: 'speaker' });

    const byFirstName = await extract(input(turns([['Priya', line]]), [known]));
    const merge = byFirstName.find((d) => d.command.op === 'MERGE_ENTITY')!;
    expect(merge.command).toEqual({ op: 'MERGE_ENTITY', srcId: deriveEntityId(MEMORY, 'Priya'), dstId: 'ent_known_priya' });
    expect(merge.confidence).toBeLessThan(0.5);
  });

  it('aliases on the similarity hook at or above the merge gate, suggests a merge under the memory gate above its own gate', async () => {
    const known: KnownEntity = { entityId: 'ent_known_kat', name: 'Katarzyna', aliases: [], types: ['person'] };
    const line = 'Last Saturday I sold four of my ceramic bowls at the craft market downtown.';
    const asked: [string, readonly string[]][] = [];
    const scoring = (score: number) => ({
      similarity: () => async (name: string, others: readonly string[]) => {
        asked.push([name, others]);
        return others.map(() => score);
      },
      similarityModel: 'test-model',
    });
    const high = await createRulesExtractor(scoring(0.96)).extract(input(turns([['Kasia', line]]), [known]));
    expect(asked[0]).toEqual(['Kasia', ['Katarzyna']]); // one call with every compatible candidate
    expect(ops(high, 'UPSERT_ENTITY')).toEqual([{ op: 'UPSERT_ENTITY', entityId: 'ent_known_kat', name: 'Katarzyna', aliases: ['Kasia'] }]);
    expect(ops(high, 'UPSERT_EVENT')[0]?.participants).toContainEqual({ entityId: 'ent_known_kat', role: 'speaker' });

    for (const score of [0.87, 0.94]) {
      const medium = await createRulesExtractor(scoring(score)).extract(input(turns([['Kasia', line]]), [known]));
      const merge = medium.find((d) => d.command.op === 'MERGE_ENTITY')!;
      expect(merge.command).toMatchObject({ srcId: deriveEntityId(MEMORY, 'Kasia'), dstId: 'ent_known_kat' });
      expect(merge.confidence).toBeLessThan(0.5);
    }

    const low = await createRulesExtractor(scoring(0.5)).extract(input(turns([['Kasia', line]]), [known]));
    expect(ops(low, 'MERGE_ENTITY')).toEqual([]);
  });

  it('names the similarity it was given in its version, since its output depends on it', () => {
    const similarity = () => async (_: string, others: readonly string[]) => others.map(() => 0);
    expect(createRulesExtractor({ similarity, similarityModel: 'use-lite-512' }).version).toBe('1.3.0+names-use-lite-512');
    expect(createRulesExtractor({ similarity, similarityModel: 'org/model:v1' }).version).toMatch(/^1\.3\.0\+names-org-model-v1-[0-9a-f]{8}$/);
    expect(createRulesExtractor().version).toBe('1.3.0');
  });

  it('merges two known entities that share an alias, at a high confidence', async () => {
    const known: KnownEntity[] = [
      { entityId: 'ent_a', name: 'Daniel Okafor', aliases: ['Danny'], types: ['person'] },
      { entityId: 'ent_b', name: 'Danny', aliases: [], types: ['person'] },
    ];
    const derived = await extract(input(turns([['Danny', 'Yesterday I finally finished building the bookshelf for my daughter’s room.']]), known));
    const merge = derived.find((d) => d.command.op === 'MERGE_ENTITY')!;
    expect(merge.command).toEqual({ op: 'MERGE_ENTITY', srcId: 'ent_b', dstId: 'ent_a' });
    expect(merge.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('derives nothing from chit-chat', async () => {
    const chat = turns([
      ['Omar', 'Thanks so much!'],
      ['Priya', 'Haha, same here. Talk soon!'],
      ['Omar', 'You are so sweet, I am glad you liked it.'],
      ['Priya', 'How was your weekend?'],
      ['Omar', 'Wow, that sounds amazing, good for you!'],
    ]);
    expect(await extract(input(chat))).toEqual([]);
  });

  it('is deterministic for a given input', async () => {
    const i = input(turns(DIALOG), [{ entityId: 'ent_known_priya', name: 'Priya Raman', aliases: [], types: ['person'] }]);
    const [a, b] = [await extract(i), await createRulesExtractor().extract(structuredClone(i))];
    expect(b).toEqual(a);
    expect(a.length).toBeGreaterThan(0);
  });

  it('derives only commands that validate as wire commands', async () => {
    const known: KnownEntity[] = [{ entityId: 'ent_known_priya', name: 'Priya Raman', aliases: ['Pri'], types: ['person'] }];
    const derived = await extract(input(turns(DIALOG), known));
    expect(derived.length).toBeGreaterThan(10);
    for (const d of derived) {
      const parsed = wireCommand.safeParse(d.command);
      expect(parsed.error?.issues ?? []).toEqual([]);
    }
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createRulesExtractor().extract(input(turns(DIALOG)), controller.signal)).rejects.toThrow();
  });
});
