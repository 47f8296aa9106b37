import { commandsOfLog } from '../export';
import { entityAt, eventsAt, factHistory, factsAt, mentionAt } from '../cut';
import type { CommandInput } from '../testing/given';
import { after, at, bare, edge, entity, given, mention } from '../testing/given';

const erase = (subject: Record<string, string>, recordedAt?: string): CommandInput =>
  ({ op: 'ERASE', subject, reason: 'asked to be forgotten', ...(recordedAt !== undefined ? { recordedAt } : {}) }) as unknown as CommandInput;

const seed: CommandInput[] = [
  entity('alice', 'Alice', { aliases: ['Ali'], types: ['person'], recordedAt: at('MON') }),
  entity('acme', 'Acme', { recordedAt: at('MON') }),
  edge('alice', 'works_at', 'acme', { factId: 'f1', validFrom: at('MON'), source: 'Alice said', recordedAt: at('MON') }),
  edge('alice', 'nickname', { literal: 'Al', datatype: 'string' }, { factId: 'f2', validFrom: at('MON'), recordedAt: at('MON') }),
  edge('acme', 'city', { literal: 'Paris', datatype: 'string' }, { factId: 'f3', validFrom: at('MON'), source: 'website', recordedAt: at('MON') }),
  {
    op: 'UPSERT_EVENT',
    eventId: 'ev1',
    summary: 'Alice joined Acme',
    participants: [{ entityId: 'alice', role: 'subject' }],
    includesFacts: ['f1'],
    timeSpan: { from: at('MON'), to: null },
    recordedAt: at('MON'),
  } as CommandInput,
  mention('d1', 'Alice: I joined Acme', { mentionId: 'm1', speaker: 'Alice', recordedAt: at('MON') }),
  mention('d1', 'Bob: congrats', { mentionId: 'm2', speaker: 'Bob', recordedAt: at('MON') }),
  mention('d2', 'unrelated', { mentionId: 'm3', recordedAt: at('MON') }),
];

describe('ERASE', () => {
  it('erases an entity’s names, the content of every fact naming it and the summary of its events, at every record time', () => {
    const s = given(seed);
    const { records, results } = s.when(erase({ entityId: 'alice' }, at('TUE')));
    expect(bare(records)).toEqual([
      {
        type: 'SubjectErased',
        data: { subject: { kind: 'entity', id: 'alice' }, generation: 0, entities: ['alice'], facts: ['f1', 'f2'], events: ['ev1'], mentions: [] },
      },
    ]);
    expect(results[0]).toMatchObject({ status: 'applied', ids: { entityId: 'alice' } });
    // A cut before the erasure sees it too: erasure changes the past.
    for (const state of [s.at(at('MON')), s.at()]) {
      expect(entityAt(state, 'alice')).toMatchObject({ name: null, names: [], aliases: [], types: [], erased: true });
      const facts = factsAt(state, '*', {});
      expect(facts.find((f) => f.factId === 'f1')).toMatchObject({ dst: 'acme', source: null, erased: true });
      expect(facts.find((f) => f.factId === 'f2')).toMatchObject({ dst: null, erased: true });
      expect(facts.find((f) => f.factId === 'f3')).toEqual(expect.not.objectContaining({ erased: true }));
      expect(facts.find((f) => f.factId === 'f3')).toMatchObject({ dst: { literal: 'Paris' }, source: 'website' });
      expect(eventsAt(state, '*')).toEqual([expect.objectContaining({ eventId: 'ev1', summary: null, erased: true })]);
    }
    expect(entityAt(s.at(), 'acme')).toEqual(expect.not.objectContaining({ erased: true }));
  });

  it('erases a document’s mentions, and leaves the others', () => {
    const s = given(seed);
    s.when(erase({ docId: 'd1' }));
    expect(mentionAt(s.at(), 'm1')).toMatchObject({ text: null, speaker: null, erased: true, docId: 'd1' });
    expect(mentionAt(s.at(), 'm2')).toMatchObject({ text: null, erased: true });
    expect(mentionAt(s.at(), 'm3')).toMatchObject({ text: 'unrelated' });
  });

  it('answers an unknown subject with the SPEC code and writes nothing', () => {
    const s = given(seed);
    expect(s.rejects(erase({ entityId: 'nobody' }))).toMatchObject({ code: 'UNKNOWN_ENTITY' });
    expect(s.rejects(erase({ factId: 'nofact' }))).toMatchObject({ code: 'UNKNOWN_FACT' });
    expect(s.rejects(erase({ mentionId: 'nomention' }))).toMatchObject({ code: 'UNKNOWN_MENTION' });
    expect(s.rejects(erase({ docId: 'nodoc' }))).toMatchObject({ code: 'UNKNOWN_MENTION' });
  });

  it('is unchanged the second time, and counts a generation only when it erased something', () => {
    const s = given(seed);
    s.when(erase({ factId: 'f3' }));
    const { results } = s.when(erase({ factId: 'f3' }));
    expect(results[0]).toMatchObject({ status: 'unchanged' });
    expect(s.state.erasures.get('fact\u0000f3')).toBe(1);
  });

  it('keeps new content written after the erasure, and erases it again with the next generation', () => {
    const s = given(seed);
    s.when(erase({ factId: 'f3' }, at('TUE')));
    s.when(edge('acme', 'city', { literal: 'Lyon', datatype: 'string' }, { factId: 'f3', validFrom: at('TUE'), recordedAt: at('WED') }));
    const history = factHistory(s.at(), 'f3')!;
    expect(history.map((v) => [v.dst, v.erased ?? false])).toEqual([
      [null, true],
      [{ literal: 'Lyon', datatype: 'string' }, false],
    ]);
    const { records } = s.when(erase({ factId: 'f3' }, at('THU')));
    expect(records[0]!.data).toMatchObject({ generation: 1, facts: ['f3'] });
    expect(factHistory(s.at(), 'f3')!.every((v) => v.erased === true && v.dst === null)).toBe(true);
  });

  it('exports erased content as id stand-ins that an import erases again', () => {
    const s = given(seed);
    s.when(erase({ entityId: 'alice' }, after(at('MON'))));
    // Records as read once the keys are destroyed: content emptied.
    const emptied = s.log.map((r) => {
      if (r.type === 'EntityRegistered' && r.data.entityId === 'alice') return { ...r, data: { ...r.data, name: null, aliases: [], types: [] } };
      if (r.type === 'FactAsserted' && r.data.factId === 'f2') return { ...r, data: { ...r.data, dst: null, source: null } };
      if (r.type === 'EventRecorded') return { ...r, data: { ...r.data, summary: null } };
      return r;
    });
    const commands = commandsOfLog(emptied);
    expect(JSON.stringify(commands)).not.toMatch(/Alice joined|"Ali"|"Al"/);
    const imported = given(commands as CommandInput[]);
    expect(entityAt(imported.at(), 'alice')).toEqual(entityAt(s.at(), 'alice'));
    expect(factsAt(imported.at(), '*', {})).toEqual(factsAt(s.at(), '*', {}));
    expect(eventsAt(imported.at(), '*')).toEqual(eventsAt(s.at(), '*'));
  });
});
