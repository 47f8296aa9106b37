import { type EntityInput, type FactInput, type MentionInput, type MergeSuggestion, suggestMerges } from './merge-suggestions';

function entity(entityId: string, name: string | null, types: string[] = [], aliases: string[] = []): EntityInput {
  return { entityId, name, aliases, types };
}

function fact(factId: string, src: string, rel: string, dst: string | { literal: unknown }): FactInput {
  return { factId, src, rel, dst, evidence: [] };
}

function mention(mentionId: string, docId: string, speaker: string | null, text: string | null): MentionInput {
  return { mentionId, docId, speaker, text };
}

function suggest(
  entities: EntityInput[],
  facts: FactInput[] = [],
  mentions: MentionInput[] = [],
  options?: { minScore?: number; max?: number },
): MergeSuggestion[] {
  return suggestMerges({ entities, facts, mentions }, options);
}

/** The pairs suggested, as `src>dst`, whatever their score. */
function pairs(suggestions: MergeSuggestion[]): string[] {
  return suggestions.map((s) => `${s.srcId}>${s.dstId}`);
}

/** A session in which a third speaker names both "Mel" and "Melanie". */
const MEL_SESSION = [
  mention('m1', 's3', 'Caroline', 'Mel, how was the trip to the lake?'),
  mention('m2', 's3', 'Caroline', 'Melanie said the kids loved it.'),
];

describe('merge suggestions', () => {
  describe('suggests planted duplicates, keeping the entity with more facts', () => {
    it('organisations whose names differ by a corporate suffix', () => {
      const entities = [entity('org1', 'Acme Inc.', ['organization']), entity('org2', 'Acme Corporation', ['Organization'])];
      const facts = [fact('f1', 'p1', 'works_at', 'org2'), fact('f2', 'org2', 'located_in', { literal: 'Porto' })];
      const [suggestion, ...rest] = suggest(entities, facts);
      expect(rest).toEqual([]);
      expect(suggestion).toMatchObject({ srcId: 'org1', dstId: 'org2', score: 0.9 });
      expect(suggestion!.why).toContain('corporate suffix');
    });

    it('an organisation named with a suffix by name alone, untyped', () => {
      expect(pairs(suggest([entity('a', 'The Globex Company'), entity('b', 'Globex Ltd')]))).toEqual(['b>a']);
    });

    it('the same name under two ids, the smaller id kept when nothing else tells them apart', () => {
      const [suggestion] = suggest([entity('e2', 'Dana Lee', ['person']), entity('e1', 'dana  lee', ['Person'])]);
      expect(suggestion).toMatchObject({ srcId: 'e2', dstId: 'e1', score: 0.95 });
      expect(suggestion!.why).toBe('"dana  lee" and "Dana Lee" have the same name');
    });

    it('the same name under two ids, the one with facts kept', () => {
      const entities = [entity('e1', 'Dana Lee'), entity('e2', 'Dana Lee')];
      expect(pairs(suggest(entities, [fact('f1', 'e2', 'likes', { literal: 'tea' })]))).toEqual(['e1>e2']);
    });

    it('a name that is the other entity’s alias', () => {
      const [suggestion] = suggest([entity('a', 'Beth'), entity('b', 'Elizabeth Moss', [], ['Beth'])]);
      expect(suggestion).toMatchObject({ srcId: 'a', dstId: 'b', score: 0.95 });
      expect(suggestion!.why).toBe('"Beth" is also a name of "Elizabeth Moss"');
    });

    it('a short form and the full name named in the same session', () => {
      const [suggestion, ...rest] = suggest([entity('mel', 'Mel'), entity('melanie', 'Melanie', ['person'])], [], MEL_SESSION);
      expect(rest).toEqual([]);
      expect(suggestion).toEqual({
        srcId: 'mel',
        dstId: 'melanie',
        score: 0.65,
        why: '"Mel" is a short form of "Melanie"; both appear in document s3',
        evidence: ['m1', 'm2'],
      });
    });

    it('a short form speaking where the full name is said, across several sessions, scores higher', () => {
      const mentions = ['s1', 's2', 's3', 's4', 's5', 's6'].flatMap((s) => [
        mention(`${s}-a`, s, 'Mel', 'I went hiking again.'),
        mention(`${s}-b`, s, 'Caroline', 'Did Melanie come along, Mel?'),
      ]);
      const [suggestion] = suggest([entity('mel', 'Mel'), entity('melanie', 'Melanie')], [], mentions);
      expect(suggestion).toMatchObject({ srcId: 'mel', dstId: 'melanie', score: 0.85 });
      expect(suggestion!.why).toContain('both appear in documents s1, s2, s3 and 3 more');
      expect(suggestion!.evidence).toHaveLength(10);
      expect(suggestion!.evidence).toEqual([...suggestion!.evidence].sort());
    });

    it('a known diminutive of the full first name', () => {
      const mentions = [mention('m1', 'd1', 'Ann', 'Bob called.'), mention('m2', 'd1', 'Ann', 'Robert Hale is late again.')];
      const [suggestion] = suggest([entity('bob', 'Bob'), entity('robert', 'Robert Hale')], [], mentions);
      expect(suggestion).toMatchObject({ srcId: 'bob', dstId: 'robert', score: 0.65 });
      expect(suggestion!.why).toContain('"Bob" is a short form of "Robert Hale"');
    });

    it('a first name and a full name that share a fact neighbour', () => {
      const entities = [entity('c1', 'Caroline'), entity('c2', 'Caroline Smith'), entity('porto', 'Porto', ['city'])];
      const facts = [fact('f1', 'c1', 'lives_in', 'porto'), fact('f2', 'c2', 'lives_in', 'porto'), fact('f3', 'c1', 'likes', { literal: 'jazz' })];
      const [suggestion, ...rest] = suggest(entities, facts);
      expect(rest).toEqual([]);
      // Caroline has more facts: the first name is kept, the full one merged into it.
      expect(suggestion).toEqual({
        srcId: 'c2',
        dstId: 'c1',
        score: 0.65,
        why: '"Caroline" is the first name of "Caroline Smith"; both have a "lives_in" fact with "Porto"',
        evidence: ['f1', 'f2'],
      });
    });

    it('a short form and a full name that state the same literal, whatever the order of its keys', () => {
      const entities = [entity('sam', 'Sam'), entity('samantha', 'Samantha')];
      const facts = [
        fact('f1', 'samantha', 'home', { literal: { city: 'Porto', country: 'PT' } }),
        fact('f2', 'sam', 'home', { literal: { country: 'PT', city: 'Porto' } }),
        fact('f3', 'sam', 'home', { literal: { country: 'PT', city: 'Lisbon' } }),
      ];
      const [suggestion] = suggest(entities, facts);
      expect(suggestion).toEqual({
        srcId: 'samantha',
        dstId: 'sam',
        score: 0.65,
        why: '"Sam" is a short form of "Samantha"; both have a "home" fact with {"city":"Porto","country":"PT"}',
        evidence: ['f1', 'f2'],
      });
    });

    it('names one letter apart', () => {
      const entities = [entity('j1', 'Jonathon', ['person']), entity('j2', 'Jonathan', ['person'])];
      const [suggestion] = suggest(entities, [fact('f1', 'j1', 'born_in', { literal: 1990 })]);
      expect(suggestion).toMatchObject({ srcId: 'j2', dstId: 'j1', score: 0.7, why: '"Jonathon" and "Jonathan" differ by one letter', evidence: [] });
    });
  });

  describe('keeps apart', () => {
    it('two full names with different surnames, even in one session', () => {
      const mentions = [mention('m1', 'd', 'Ann', 'John Smith met John Doe.')];
      expect(suggest([entity('a', 'John Smith', ['person']), entity('b', 'John Doe', ['person'])], [], mentions)).toEqual([]);
      // Not even when one's alias is the other's name.
      expect(suggest([entity('a', 'John Smith'), entity('b', 'John Doe', [], ['John Smith'])], [], mentions)).toEqual([]);
    });

    it('a short form and a full name that a fact links to each other', () => {
      expect(suggest([entity('mel', 'Mel'), entity('melanie', 'Melanie')], [fact('f1', 'mel', 'sibling_of', 'melanie')], MEL_SESSION)).toEqual([]);
      expect(suggest([entity('a', 'Dana Lee'), entity('b', 'Dana Lee')], [fact('f1', 'b', 'knows', 'a')])).toEqual([]);
    });

    it('two speakers of one session', () => {
      const mentions = [mention('m1', 's1', 'Mel', 'Hi there!'), mention('m2', 's1', 'Melanie', 'Hello, Mel.')];
      expect(suggest([entity('mel', 'Mel'), entity('melanie', 'Melanie')], [], mentions)).toEqual([]);
    });

    it('a person and an organisation or a place of the same name', () => {
      expect(suggest([entity('p', 'Jordan', ['Person']), entity('o', 'Jordan', ['ORGANIZATION'])])).toEqual([]);
      expect(suggest([entity('p', 'Jordan', ['person']), entity('c', 'Jordan', ['country'])])).toEqual([]);
      expect(suggest([entity('p', 'Jordan', ['person']), entity('c', 'Jordan', ['TechCompany'])])).toEqual([]);
      expect(suggest([entity('p', 'Dana', ['person']), entity('c', 'Dana Co.')])).toEqual([]);
    });

    it('a short form the conversation never ties to the full name', () => {
      const mentions = [mention('m1', 's1', 'Ann', 'Mel is coming.'), mention('m2', 's2', 'Ann', 'Melanie is coming.')];
      expect(suggest([entity('mel', 'Mel'), entity('melanie', 'Melanie')], [], mentions)).toEqual([]);
    });

    it('a first name whose only appearances are inside the full name', () => {
      const mentions = [mention('m1', 's1', 'Ann', 'Caroline Smith is here.')];
      expect(suggest([entity('c1', 'Caroline'), entity('c2', 'Caroline Smith')], [], mentions)).toEqual([]);
    });

    it('short words one letter apart, and names that differ by a number', () => {
      expect(suggest([entity('a', 'Joan Smith'), entity('b', 'John Smith')])).toEqual([]);
      expect(suggest([entity('a', 'Apollo 11'), entity('b', 'Apollo 12')])).toEqual([]);
      expect(suggest([entity('a', 'Release 2024a'), entity('b', 'Release 2025a')])).toEqual([]);
    });

    it('an erased entity, and an entity given twice', () => {
      expect(suggest([entity('a', null), entity('b', null), entity('c', 'Dana')])).toEqual([]);
      expect(suggest([entity('a', 'Dana'), entity('a', 'Dana')])).toEqual([]);
    });

    it('nickname rules for organisations', () => {
      const mentions = [mention('m1', 'd', 'Ann', 'Acme and Acme Labs merged.')];
      expect(suggest([entity('a', 'Acme', ['organization']), entity('b', 'Acme Labs', ['organization'])], [], mentions)).toEqual([]);
    });
  });

  describe('output', () => {
    const entities = [
      entity('org1', 'Acme Inc.', ['organization']),
      entity('org2', 'Acme Corporation', ['organization']),
      entity('e1', 'Dana Lee'),
      entity('e2', 'Dana Lee'),
      entity('mel', 'Mel'),
      entity('melanie', 'Melanie'),
      entity('j1', 'Jonathon'),
      entity('j2', 'Jonathan'),
    ];

    it('is ordered by score, then ids, whatever the input order', () => {
      const expected = ['e2>e1', 'org1>org2', 'j2>j1', 'mel>melanie'];
      expect(pairs(suggest(entities, [], MEL_SESSION))).toEqual(expected);
      const reversed = suggest([...entities].reverse(), [], [...MEL_SESSION].reverse());
      expect(reversed).toEqual(suggest(entities, [], MEL_SESSION));
      expect(reversed.map((s) => s.score)).toEqual([0.95, 0.9, 0.7, 0.65]);
    });

    it('honours minScore and max, and lists each pair once', () => {
      expect(pairs(suggest(entities, [], MEL_SESSION, { minScore: 0.8 }))).toEqual(['e2>e1', 'org1>org2']);
      expect(pairs(suggest(entities, [], MEL_SESSION, { max: 1 }))).toEqual(['e2>e1']);
      expect(suggest(entities, [], MEL_SESSION, { max: 0 })).toEqual([]);
      // Same name, an alias and one letter apart at once: one suggestion, the strongest rule's.
      const [only, ...rest] = suggest([entity('a', 'Jonathan', [], ['Jonathon']), entity('b', 'Jonathon', [], ['Jonathan'])]);
      expect(rest).toEqual([]);
      expect(only!.score).toBe(0.95);
    });
  });

  it('a large memory: finds planted duplicates among many distinct names and skips over-common keys', () => {
    // mulberry32: a small seeded generator, so the memory is the same on every run.
    let seed = 7;
    const random = (): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const word = (): string =>
      Array.from({ length: 5 + Math.floor(random() * 4) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
    const entities: EntityInput[] = [];
    for (let i = 0; i < 50_000; i++) entities.push(entity(`x${i}`, `${word()} ${word()}`, i % 3 === 0 ? ['person'] : []));
    // One first name shared by far more entities than a block holds.
    for (let i = 0; i < 500; i++) entities.push(entity(`k${i}`, `Kim ${word()}`, ['person']));
    entities.push(entity('org1', 'Acme Inc.', ['organization']), entity('org2', 'Acme Corporation', ['organization']));
    entities.push(entity('e1', 'Dana Lee'), entity('e2', 'Dana Lee'));
    const facts = entities.slice(0, 20_000).map((e, i) => fact(`f${i}`, e.entityId, 'knows', entities[i + 1]!.entityId));
    const mentions = entities.slice(0, 20_000).map((e, i) => mention(`m${i}`, `d${i % 500}`, e.name, `I met ${entities[i + 7]!.name} today.`));

    const found = pairs(suggestMerges({ entities, facts, mentions }));
    expect(found).toEqual(expect.arrayContaining(['e2>e1', 'org1>org2']));
  });
});
