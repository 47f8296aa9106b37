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
  it('names itself rules@2.0.0', () => {
    const extractor = createRulesExtractor();
    expect([extractor.name, extractor.version]).toEqual(['rules', '2.0.0']);
  });

  it('says where the speaker lives and works with the canonical relations, declared `one`', async () => {
    const derived = await extract(input(turns(DIALOG)));
    const priya = deriveEntityId(MEMORY, 'Priya');
    const edges = ops(derived, 'UPSERT_EDGE');
    const livesIn = edges.find((e) => e.rel === 'lives_in');
    expect(livesIn).toMatchObject({ src: priya, dst: deriveEntityId(MEMORY, 'Lisbon'), evidence: ['s1-t0'] });
    expect(livesIn?.confidence).toBeGreaterThanOrEqual(0.5);
    expect(edges.find((e) => e.rel === 'works_at')).toMatchObject({ src: priya, dst: deriveEntityId(MEMORY, 'Acme Robotics') });
    expect(edges.find((e) => e.rel === 'works_as')).toMatchObject({ src: priya, dst: { literal: 'test engineer' } });
    expect(edges.find((e) => e.rel === 'has_family' && e.src === priya)).toMatchObject({ dst: deriveEntityId(MEMORY, 'Tom'), evidence: ['s1-t2'] });
    const relations = ops(derived, 'DEFINE_RELATION');
    expect(relations).toEqual(
      expect.arrayContaining([
        { op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one' },
        { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one' },
        { op: 'DEFINE_RELATION', rel: 'works_as', cardinality: 'one' },
      ]),
    );
    for (const d of derived) {
      expect(d.turns.length).toBeGreaterThan(0);
      expect(d.why).toBeTruthy();
      expect(d.confidence).toBeGreaterThanOrEqual(0);
      expect(d.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('says anything else as a statement in third person named for its verb, in its tense', async () => {
    const derived = await extract(input(turns(DIALOG)));
    const edges = ops(derived, 'UPSERT_EDGE');
    const omar = deriveEntityId(MEMORY, 'Omar');
    expect(edges.find((e) => e.rel === 'ran')).toMatchObject({
      src: deriveEntityId(MEMORY, 'Priya'),
      dst: { literal: expect.stringContaining('first half marathon in Boston') },
      evidence: ['s1-t2'],
    });
    expect(edges.find((e) => e.rel === 'plans_to_adopt')).toMatchObject({ src: omar, dst: { literal: expect.stringContaining('puppy') } });
    expect(edges.find((e) => e.rel === 'finished')).toMatchObject({
      src: omar,
      dst: { literal: 'degree in marine biology at University of Leeds' },
    });
  });

  it('holds no turn’s sentence as a fact or an event: what it says is said in third person, not repeated', async () => {
    const derived = await extract(input(turns(DIALOG)));
    const names = new Map(ops(derived, 'UPSERT_ENTITY').map((e) => [e.entityId ?? '', e.name]));
    const said = (id: string) => names.get(id) ?? id;
    const texts = derived.flatMap((d) => {
      const c = d.command;
      if (c.op === 'UPSERT_EVENT') return [c.summary];
      if (c.op !== 'UPSERT_EDGE') return [];
      return [`${said(c.src)} ${c.rel.replace(/_/gu, ' ')} ${typeof c.dst === 'string' ? said(c.dst) : String(c.dst.literal)}`];
    });
    expect(texts.length).toBeGreaterThan(5);
    // A copy: six words or more, found as they are in a turn (the measure of ../shared/eval/statement-match.mjs).
    for (const text of texts) {
      expect(
        DIALOG.filter(([, line]) => text.split(/\s+/u).length >= 6 && line.toLowerCase().includes(text.toLowerCase().replace(/[.!?]$/u, ''))),
      ).toEqual([]);
    }
  });

  it('keeps a negation in what it says, never dropping or inverting it', async () => {
    const derived = await extract(input(turns([['Priya', "I don't eat meat, and I'm not a fan of cheese either."]])));
    const edges = ops(derived, 'UPSERT_EDGE').map((e) => [e.rel, e.dst]);
    expect(edges).toEqual(
      expect.arrayContaining([
        ['does_not_eat', { literal: 'meat', datatype: 'string' }],
        ['does_not_like', { literal: 'cheese', datatype: 'string' }],
      ]),
    );
    expect(edges.map(([rel]) => rel)).not.toContain('eats');
    expect(edges.map(([rel]) => rel)).not.toContain('likes');
  });

  it('derives nothing from a question, and only the statement of a sentence that ends in one', async () => {
    expect(await extract(input(turns([['Omar', 'Did you move to Porto last month? Do you still work at Acme?']])))).toEqual([]);
    const derived = await extract(input(turns([['Omar', 'I finished another pottery project - want to see a pic?']])));
    expect(ops(derived, 'UPSERT_EDGE').map((e) => e.rel)).toEqual(['finished', 'does_activity']);
  });

  it('says of whom a clause is: the speaker for I and my, a person named, what the speaker calls the listener’s', async () => {
    const derived = await extract(
      input(
        turns([
          ['Omar', 'My daughter Sara started school last week.'],
          ['Priya', 'I love your painting of the harbour.'],
        ]),
      ),
    );
    const sara = deriveEntityId(MEMORY, 'Sara');
    const edges = ops(derived, 'UPSERT_EDGE');
    expect(edges.find((e) => e.rel === 'started')).toMatchObject({ src: sara, dst: { literal: 'school' } });
    expect(edges.find((e) => e.rel === 'has_child')).toMatchObject({ src: deriveEntityId(MEMORY, 'Omar'), dst: sara });
    expect(edges.find((e) => e.rel === 'likes')).toMatchObject({
      src: deriveEntityId(MEMORY, 'Priya'),
      dst: { literal: "Omar's painting of harbour" },
    });
  });

  it('derives events whose time span resolves the turn’s own words against its `at`, and says when in the summary', async () => {
    const derived = await extract(input(turns(DIALOG)));
    const events = ops(derived, 'UPSERT_EVENT');
    const span = (words: string) => events.find((e) => e.summary.includes(words))?.timeSpan;
    expect(span('half marathon')).toEqual({ from: '2024-03-12T00:00:00.000Z', to: '2024-03-13T00:00:00.000Z' });
    expect(span('adopt puppy')).toEqual({ from: '2024-04-01T00:00:00.000Z', to: '2024-05-01T00:00:00.000Z' });
    expect(span('marine biology')).toEqual({ from: '2022-01-01T00:00:00.000Z', to: '2023-01-01T00:00:00.000Z' });
    expect(span('Mount Tamalpais')).toEqual({ from: '2024-03-09T00:00:00.000Z', to: '2024-03-10T00:00:00.000Z' });
    expect(events.map((e) => e.summary)).toEqual(
      expect.arrayContaining([
        'Priya ran first half marathon in Boston with their brother Tom (12 March 2024)',
        expect.stringMatching(/^Omar plans to adopt puppy .* \(April 2024\)$/u),
        expect.stringMatching(/\(2022\)$/u),
      ]),
    );
    const marathon = events.find((e) => e.summary.includes('half marathon'))!;
    expect(marathon.participants).toEqual(
      expect.arrayContaining([
        { entityId: deriveEntityId(MEMORY, 'Priya'), role: 'speaker' },
        { entityId: deriveEntityId(MEMORY, 'Tom'), role: 'participant' },
        { entityId: deriveEntityId(MEMORY, 'Boston'), role: 'place' },
      ]),
    );
    // A statement with no time of its own is no event.
    expect(events.some((e) => e.summary.includes('lives'))).toBe(false);
  });

  it('rests every event on the statement fact derived before it, citing the same turn', async () => {
    const derived = await extract(input(turns(DIALOG)));
    expect(ops(derived, 'UPSERT_EVENT').length).toBeGreaterThan(0);
    derived.forEach((d, i) => {
      if (d.command.op !== 'UPSERT_EVENT') return;
      expect(d.command.includesFacts.length).toBeGreaterThan(0);
      for (const factId of d.command.includesFacts) {
        const fact = derived.slice(0, i).find((e) => e.command.op === 'UPSERT_EDGE' && e.command.factId === factId);
        expect(fact).toBeDefined();
        expect(fact!.command.op === 'UPSERT_EDGE' && fact!.command.rel).not.toBe('told');
        expect(fact!.command.op === 'UPSERT_EDGE' && fact!.command.evidence).toEqual(d.turns);
        expect(fact!.confidence).toBeGreaterThanOrEqual(d.confidence);
      }
    });
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

  it('says not working and a job got later with the `one` relation works_as, so the job supersedes', async () => {
    const derived = await extract(
      input([
        ...turns([['Dana', "I'm not working right now, so I'm looking for a job in a call center or data entry."]], '2024-03-01T10:00:00.000Z', 's1'),
        ...turns([['Dana', 'I just got an email saying I got the Remote Data entry job!']], '2024-03-08T10:00:00.000Z', 's2'),
      ]),
    );
    const worksAs = ops(derived, 'UPSERT_EDGE').filter((e) => e.rel === 'works_as');
    expect(worksAs.map((e) => [e.dst, e.validFrom])).toEqual([
      [{ literal: 'not working', datatype: 'string' }, '2024-03-01T10:00:00.000Z'],
      [{ literal: 'remote data entry', datatype: 'string' }, '2024-03-08T10:00:00.000Z'],
    ]);
    expect(new Set(worksAs.map((e) => e.src)).size).toBe(1);
    expect(ops(derived, 'DEFINE_RELATION')).toEqual([{ op: 'DEFINE_RELATION', rel: 'works_as', cardinality: 'one' }]);
    expect(ops(derived, 'UPSERT_EDGE').find((e) => e.rel === 'seeks')?.dst).toEqual({
      literal: 'job in call center or data entry',
      datatype: 'string',
    });
    // A capitalised modifier ("the Remote Data entry job") or a sentence's first word is no organisation.
    expect(ops(derived, 'UPSERT_ENTITY').map((e) => e.name)).toEqual(['Dana']);
  });

  it('names a relation the memory knows as the memory does, and declares none it declared', async () => {
    const derived = await createRulesExtractor().extract({
      ...input(turns([['Priya', 'I live in Lisbon.']])),
      relations: [{ rel: 'livesIn', cardinality: 'one' }],
    });
    expect(ops(derived, 'UPSERT_EDGE').map((e) => e.rel)).toEqual(['livesIn']);
    expect(ops(derived, 'DEFINE_RELATION')).toEqual([]);
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
    expect(createRulesExtractor({ similarity, similarityModel: 'use-lite-512' }).version).toBe('2.0.0+names-use-lite-512');
    expect(createRulesExtractor({ similarity, similarityModel: 'org/model:v1' }).version).toMatch(/^2\.0\.0\+names-org-model-v1-[0-9a-f]{8}$/);
    expect(createRulesExtractor().version).toBe('2.0.0');
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

  it('derives nothing from greetings and chit-chat', async () => {
    const chat = turns([
      ['Omar', 'Hey Priya! Good to see you. Thanks so much!'],
      ['Priya', 'Haha, same here. Talk soon!'],
      ['Omar', 'You are so sweet, I am glad you liked it.'],
      ['Priya', 'How was your weekend?'],
      ['Omar', 'Wow, that sounds amazing, good for you! Keep it up!'],
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
