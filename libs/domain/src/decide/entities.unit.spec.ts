import { entityAt, factsAt } from '../cut';
import { deriveEntityId, normaliseName } from '../ids';
import { MEMORY, at, bare, before, edge, entity, given, merge, relation } from '../testing/given';

describe('UPSERT_ENTITY', () => {
  it('creates an entity with an id derived from the memory and the case-folded, whitespace-normalised name', () => {
    const s = given();
    const { records, results } = s.when({ op: 'UPSERT_ENTITY', name: 'Alice  Smith', recordedAt: at('MON') });

    const id = deriveEntityId(MEMORY, 'alice smith');
    expect(id).toMatch(/^ent_[0-9a-f]{24}$/);
    expect(bare(records)).toEqual([{ type: 'EntityRegistered', data: { entityId: id, name: 'Alice  Smith', aliases: [], types: [] } }]);
    expect(results).toEqual([{ commandId: 'cmd-1', status: 'applied', recordedAt: at('MON'), ids: { entityId: id } }]);
  });

  it.each([['alice smith'], ['ALICE SMITH'], ['  Alice\tSmith \n'], ['Alice \u00a0 Smith']])('derives the same id for %j', (name) => {
    expect(normaliseName(name)).toBe('alice smith');
    expect(deriveEntityId(MEMORY, name)).toBe(deriveEntityId(MEMORY, 'Alice Smith'));
  });

  // SPEC §3 says case-folded; JS toLowerCase() is lower-casing, which differs from (full) Unicode
  // case folding for ß (→ ss) and final sigma (ς → σ): `s.toUpperCase().toLowerCase()` folds both.
  it.each([
    ['Strauß', 'STRAUSS'],
    ['Weiß', 'weiss'],
    ['ΟΔΥΣΣΕΥΣ', 'οδυσσευσ'],
  ])('case folding: %j and %j derive the same id', (a, b) => {
    expect(deriveEntityId(MEMORY, a)).toBe(deriveEntityId(MEMORY, b));
  });

  it('derives different ids for different names and for different memories', () => {
    expect(deriveEntityId(MEMORY, 'Alice')).not.toBe(deriveEntityId(MEMORY, 'Alicia'));
    expect(deriveEntityId(MEMORY, 'Alice')).not.toBe(deriveEntityId('other-memory', 'Alice'));
    expect(deriveEntityId(MEMORY, 'Alice')).toBe(deriveEntityId(MEMORY, 'Alice'));
  });

  it('a second upsert of a case/whitespace variant of the name targets the same entity', () => {
    const s = given([{ op: 'UPSERT_ENTITY', name: 'Alice Smith', recordedAt: at('MON') }]);
    const id = deriveEntityId(MEMORY, 'Alice Smith');
    const { records, results } = s.when({ op: 'UPSERT_ENTITY', name: 'alice  smith', types: ['person'], recordedAt: at('TUE') });

    expect(results[0]!.ids).toEqual({ entityId: id });
    expect(s.state.entities.size).toBe(1);
    // the variant spelling is new surface text: it becomes an alias
    expect(bare(records)).toEqual([{ type: 'EntityAliasesAdded', data: { entityId: id, aliases: ['alice  smith'], types: ['person'] } }]);
  });

  it('honours an explicit entityId', () => {
    const s = given();
    const { records } = s.when(entity('alice', 'Alice', { recordedAt: at('MON') }));
    expect(bare(records)).toEqual([{ type: 'EntityRegistered', data: { entityId: 'alice', name: 'Alice', aliases: [], types: [] } }]);
    expect(s.state.entities.has(deriveEntityId(MEMORY, 'Alice'))).toBe(false);
  });

  it('on creation de-duplicates aliases and types and drops an alias equal to the name', () => {
    const s = given();
    const { records } = s.when(entity('alice', 'Alice', { aliases: ['Ally', 'Alice', 'Ally', 'A.'], types: ['person', 'person', 'employee'] }));
    expect(bare(records)).toEqual([
      { type: 'EntityRegistered', data: { entityId: 'alice', name: 'Alice', aliases: ['Ally', 'A.'], types: ['person', 'employee'] } },
    ]);
  });

  it('adds only the aliases and types that are new', () => {
    const s = given([entity('alice', 'Alice', { aliases: ['Ally'], types: ['person'] })]);
    const { records, results } = s.when(entity('alice', 'Alice', { aliases: ['Ally', 'Al'], types: ['person', 'engineer'] }));
    expect(bare(records)).toEqual([{ type: 'EntityAliasesAdded', data: { entityId: 'alice', aliases: ['Al'], types: ['engineer'] } }]);
    expect(results[0]!.status).toBe('applied');
  });

  it('a different name for a known entity id becomes an alias', () => {
    const s = given([entity('alice', 'Alice')]);
    const { records } = s.when(entity('alice', 'Alice Smith'));
    expect(bare(records)).toEqual([{ type: 'EntityAliasesAdded', data: { entityId: 'alice', aliases: ['Alice Smith'], types: [] } }]);
    expect(entityAt(s.state, 'alice')).toMatchObject({ name: 'Alice', aliases: ['Alice Smith'] });
  });

  it('is unchanged (no events) when nothing is new', () => {
    const s = given([entity('alice', 'Alice', { aliases: ['Ally'], types: ['person'], recordedAt: at('MON') })]);
    const { records, results } = s.when(entity('alice', 'Alice', { aliases: ['Ally'], types: ['person'] }), at('TUE'));
    expect(records.map((e) => e.type)).toEqual(['CommandUnchanged']); // no version: the log only remembers the command
    expect(results).toEqual([{ commandId: 'cmd-2', status: 'unchanged', recordedAt: at('TUE'), ids: { entityId: 'alice' } }]);
  });

  it('is unchanged when the name is one of the known aliases', () => {
    const s = given([entity('alice', 'Alice', { aliases: ['Ally'] })]);
    expect(s.when(entity('alice', 'Ally')).results[0]!.status).toBe('unchanged');
  });

  it('an upsert naming a merged entity adds to the canonical entity', () => {
    const s = given([entity('a1', 'Alice'), entity('a2', 'Ally'), merge('a2', 'a1')]);
    const { records, results } = s.when(entity('a2', 'Ally', { types: ['person'] }));
    expect(results[0]!.ids).toEqual({ entityId: 'a1' });
    expect(bare(records)).toEqual([{ type: 'EntityAliasesAdded', data: { entityId: 'a1', aliases: ['Ally'], types: ['person'] } }]);
  });

  describe('visibility at record time', () => {
    const s = given([
      entity('alice', 'Alice', { recordedAt: at('MON', '09:00') }),
      entity('alice', 'Alice', { aliases: ['Ally'], types: ['person'], recordedAt: at('TUE', '09:00') }),
    ]);

    it('is invisible one ms before creation and visible exactly at it', () => {
      expect(entityAt(s.at(before(at('MON', '09:00'))), 'alice')).toBeNull();
      expect(entityAt(s.at(at('MON', '09:00')), 'alice')).toEqual({
        entityId: 'alice',
        name: 'Alice',
        names: ['Alice'],
        aliases: [],
        types: [],
        merges: [],
        recordedFrom: at('MON', '09:00'),
      });
    });

    it('shows aliases and types from the record time they were added', () => {
      expect(entityAt(s.at(before(at('TUE', '09:00'))), 'alice')).toMatchObject({ aliases: [], types: [] });
      expect(entityAt(s.at(at('TUE', '09:00')), 'alice')).toMatchObject({ aliases: ['Ally'], types: ['person'] });
    });

    it('an unknown entity is null', () => {
      expect(entityAt(s.at(), 'bob')).toBeNull();
    });
  });
});

describe('MERGE_ENTITY', () => {
  it('rejects an unknown src with 404 UNKNOWN_ENTITY', () => {
    const s = given([entity('a1', 'Alice')]);
    const error = s.rejects(merge('ghost', 'a1'));
    expect(error).toMatchObject({ code: 'UNKNOWN_ENTITY' });
    expect(error.details).toMatchObject({ field: 'srcId', entityId: 'ghost', commandIndex: 0 });
  });

  it('rejects an unknown dst with 404 UNKNOWN_ENTITY', () => {
    const s = given([entity('a1', 'Alice')]);
    const error = s.rejects(merge('a1', 'ghost'));
    expect(error).toMatchObject({ code: 'UNKNOWN_ENTITY' });
    expect(error.details).toMatchObject({ field: 'dstId', entityId: 'ghost' });
  });

  it('records the merge with the canonical roots', () => {
    const s = given([entity('a1', 'Alice'), entity('a2', 'Ally'), entity('a3', 'A.')]);
    expect(bare(s.when(merge('a2', 'a1')).records)).toEqual([
      { type: 'EntitiesMerged', data: { srcId: 'a2', dstId: 'a1', srcRoot: 'a2', dstRoot: 'a1' } },
    ]);
    // merging a class member merges its whole class, into dst's root
    const { records, results } = s.when(merge('a2', 'a3'));
    expect(bare(records)).toEqual([{ type: 'EntitiesMerged', data: { srcId: 'a2', dstId: 'a3', srcRoot: 'a1', dstRoot: 'a3' } }]);
    expect(results[0]!.ids).toEqual({ srcId: 'a2', dstId: 'a3' });
    expect(entityAt(s.state, 'a1')?.entityId).toBe('a3');
    expect(entityAt(s.state, 'a2')?.entityId).toBe('a3');
  });

  it('is unchanged when both are already in one class (in either direction)', () => {
    const s = given([entity('a1', 'Alice'), entity('a2', 'Ally'), merge('a2', 'a1')]);
    expect(s.when(merge('a2', 'a1')).results[0]!.status).toBe('unchanged');
    expect(s.when(merge('a1', 'a2')).results[0]!.status).toBe('unchanged');
    expect(entityAt(s.state, 'a1')?.entityId).toBe('a1');
  });

  describe('resolution at record time', () => {
    const MERGED = at('WED', '12:00');
    const s = given([
      entity('a1', 'Alice', { recordedAt: at('MON') }),
      entity('a2', 'Ally', { types: ['person'], recordedAt: at('MON') }),
      entity('acme', 'Acme', { recordedAt: at('MON') }),
      entity('acme2', 'ACME Corp', { recordedAt: at('MON') }),
      entity('paris', 'Paris', { recordedAt: at('MON') }),
      edge('a1', 'works_at', 'acme', { factId: 'f-work', validFrom: at('MON'), recordedAt: at('MON') }),
      edge('a2', 'lives_in', 'paris', { factId: 'f-home', validFrom: at('MON'), recordedAt: at('MON') }),
      edge('paris', 'hosts', 'acme2', { factId: 'f-hq', validFrom: at('MON'), recordedAt: at('MON') }),
      merge('a2', 'a1', MERGED),
      merge('acme2', 'acme', MERGED),
    ]);
    const ids = (facts: { factId: string }[]) => facts.map((f) => f.factId);

    it('before the merge a src filter naming src matches only its own facts, shown under its own id', () => {
      const r = before(MERGED);
      expect(factsAt(s.at(r), at('TUE'), { src: 'a2' })).toEqual([expect.objectContaining({ factId: 'f-home', src: 'a2' })]);
      expect(ids(factsAt(s.at(r), at('TUE'), { src: 'a1' }))).toEqual(['f-work']);
      expect(ids(factsAt(s.at(r), at('TUE'), { dst: 'acme' }))).toEqual(['f-work']);
      expect(factsAt(s.at(r), at('TUE'), { dst: 'acme2' })).toEqual([expect.objectContaining({ factId: 'f-hq', dst: 'acme2' })]);
      expect(entityAt(s.at(r), 'a2')).toMatchObject({ entityId: 'a2', name: 'Ally', merges: [] });
    });

    it('from the merge on, a src filter naming either id matches the facts of both, shown with dstId', () => {
      for (const r of [MERGED, at('SUN')]) {
        for (const src of ['a1', 'a2']) {
          expect(factsAt(s.at(r), at('TUE'), { src })).toEqual([
            expect.objectContaining({ factId: 'f-home', src: 'a1', rel: 'lives_in', dst: 'paris' }),
            expect.objectContaining({ factId: 'f-work', src: 'a1', rel: 'works_at', dst: 'acme' }),
          ]);
        }
      }
    });

    it('from the merge on, a dst filter naming either id matches both, shown with dstId', () => {
      for (const dst of ['acme', 'acme2']) {
        expect(factsAt(s.at(MERGED), at('TUE'), { dst })).toEqual([
          expect.objectContaining({ factId: 'f-hq', src: 'paris', dst: 'acme' }),
          expect.objectContaining({ factId: 'f-work', src: 'a1', dst: 'acme' }),
        ]);
      }
    });

    it('entityAt resolves src to dst from the merge on, with its names, aliases, types and merges', () => {
      expect(entityAt(s.at(MERGED), 'a2')).toEqual({
        entityId: 'a1',
        name: 'Alice',
        names: ['Alice', 'Ally'],
        aliases: ['Ally'],
        types: ['person'],
        merges: [{ entityId: 'a2', into: 'a1', recordedAt: MERGED }],
        recordedFrom: at('MON'),
      });
      expect(entityAt(s.at(MERGED), 'a1')).toEqual(entityAt(s.at(MERGED), 'a2'));
    });

    it('the merge does not leak into earlier record times even when queried later', () => {
      // same log, earlier cut: still two separate entities
      const earlier = s.at(at('TUE'));
      expect(entityAt(earlier, 'a1')).toMatchObject({ entityId: 'a1', aliases: [] });
      expect(ids(factsAt(earlier, '*', { src: 'a1' }))).toEqual(['f-work']);
    });
  });
});

describe('DEFINE_RELATION', () => {
  it('declares a relation', () => {
    const s = given();
    const { records, results } = s.when(relation('works_at', 'one'));
    expect(bare(records)).toEqual([{ type: 'RelationDefined', data: { rel: 'works_at', cardinality: 'one' } }]);
    expect(results[0]).toMatchObject({ status: 'applied', ids: { rel: 'works_at' } });
    expect(s.state.relations.get('works_at')).toBe('one');
  });

  it('is unchanged when redeclared with the same cardinality, applied when changed', () => {
    const s = given([relation('works_at', 'one')]);
    expect(s.when(relation('works_at', 'one')).results[0]!.status).toBe('unchanged');
    expect(bare(s.when(relation('works_at', 'many')).records)).toEqual([{ type: 'RelationDefined', data: { rel: 'works_at', cardinality: 'many' } }]);
  });

  it('an undeclared relation is not declared one (it is many)', () => {
    const s = given([entity('a'), entity('b'), entity('c'), edge('a', 'knows', 'b', { validFrom: at('MON') })]);
    const { records } = s.when(edge('a', 'knows', 'c', { validFrom: at('WED') }));
    expect(records.map((e) => e.type)).toEqual(['FactAsserted']);
  });
});
