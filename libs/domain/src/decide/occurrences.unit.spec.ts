import type { CommandInput } from '../testing/given';
import { episodesAt, eventsAt, mentionsAt, topicsAt } from '../cut';
import { fold } from '../evolve';
import { deriveEpisodeId, deriveEventId, deriveMentionId } from '../ids';
import { MEMORY, after, archive, at, bare, before, edge, entity, given, mention } from '../testing/given';

const seed: CommandInput[] = [
  entity('alice', 'Alice', { recordedAt: at('MON') }),
  entity('acme', 'Acme', { recordedAt: at('MON') }),
  entity('bob', 'Bob', { recordedAt: at('MON') }),
  edge('alice', 'works_at', 'acme', { factId: 'f1', validFrom: at('MON'), recordedAt: at('MON') }),
  edge('bob', 'works_at', 'acme', { factId: 'f2', validFrom: at('MON'), recordedAt: at('MON') }),
];

function event(
  eventId: string | undefined,
  includesFacts: string[],
  extra: Partial<Extract<CommandInput, { op: 'UPSERT_EVENT' }>> = {},
): CommandInput {
  return {
    op: 'UPSERT_EVENT',
    ...(eventId !== undefined ? { eventId } : {}),
    summary: `summary of ${eventId ?? 'event'}`,
    includesFacts,
    timeSpan: { from: at('TUE'), to: at('THU') },
    ...extra,
  };
}

const eventIds = (views: { eventId: string }[]) => views.map((v) => v.eventId);

describe('UPSERT_EVENT', () => {
  it('records an event with a derived id and resolved defaults', () => {
    const s = given(seed);
    const { records, results } = s.when({
      op: 'UPSERT_EVENT',
      summary: 'Alice joined Acme',
      includesFacts: ['f1'],
      timeSpan: { from: at('MON') },
      recordedAt: at('TUE'),
    });
    const eventId = deriveEventId(MEMORY, 'Alice joined Acme', at('MON'));
    expect(eventId).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(bare(records)).toEqual([
      {
        type: 'EventRecorded',
        data: { eventId, summary: 'Alice joined Acme', participants: [], includesFacts: ['f1'], timeSpan: { from: at('MON'), to: null } },
      },
    ]);
    expect(results[0]).toMatchObject({ status: 'applied', recordedAt: at('TUE'), ids: { eventId } });
  });

  it('an unknown included fact is 404 UNKNOWN_FACT', () => {
    const s = given(seed);
    const error = s.rejects(event('e1', ['f1', 'nope']));
    expect(error).toMatchObject({ code: 'UNKNOWN_FACT' });
    expect(error.details).toMatchObject({ factId: 'nope', field: 'includesFacts' });
  });

  it('an unknown participant is 404 UNKNOWN_ENTITY', () => {
    const s = given(seed);
    expect(s.rejects(event('e1', ['f1'], { participants: [{ entityId: 'ghost', role: 'agent' }] }))).toMatchObject({ code: 'UNKNOWN_ENTITY' });
  });

  it('an archived (but known) included fact is accepted', () => {
    const s = given([...seed, archive('f1', at('TUE'))]);
    expect(s.when(event('e1', ['f1'], { recordedAt: at('WED') })).results[0]!.status).toBe('applied');
  });

  it('is unchanged when re-upserted identically, applied when changed', () => {
    const s = given([...seed, event('e1', ['f1'], { recordedAt: at('TUE') })]);
    expect(s.when(event('e1', ['f1'], { recordedAt: at('WED') })).results[0]!.status).toBe('unchanged');
    expect(s.when(event('e1', ['f1', 'f2'], { recordedAt: at('WED') })).results[0]!.status).toBe('applied');
  });

  describe('visibility', () => {
    // e1 includes f1 (archived Thu 12:00), e2 includes f2 (never archived), e0 includes nothing.
    const s = given([
      ...seed,
      event('e1', ['f1'], { participants: [{ entityId: 'alice', role: 'employee' }], recordedAt: at('TUE', '12:00') }),
      event('e2', ['f2'], { timeSpan: { from: at('WED'), to: null }, recordedAt: at('TUE', '12:00') }),
      event('e0', [], { timeSpan: { from: at('MON'), to: at('TUE') }, recordedAt: at('WED') }),
      archive('f1', at('THU', '12:00')),
    ]);

    it('is invisible one ms before it was recorded and visible exactly when it was', () => {
      expect(eventsAt(s.at(before(at('TUE', '12:00'))), '*')).toEqual([]);
      expect(eventsAt(s.at(at('TUE', '12:00')), '*')).toEqual([
        {
          eventId: 'e1',
          summary: 'summary of e1',
          timeSpan: { from: at('TUE'), to: at('THU') },
          participants: [{ entityId: 'alice', role: 'employee' }],
          includesFacts: ['f1'],
          recordedFrom: at('TUE', '12:00'),
        },
        {
          eventId: 'e2',
          summary: 'summary of e2',
          timeSpan: { from: at('WED'), to: null },
          participants: [],
          includesFacts: ['f2'],
          recordedFrom: at('TUE', '12:00'),
        },
      ]);
    });

    it('an event with no included facts is visible once recorded', () => {
      expect(eventIds(eventsAt(s.at(before(at('WED'))), '*'))).toEqual(['e1', 'e2']);
      expect(eventIds(eventsAt(s.at(at('WED')), '*'))).toEqual(['e0', 'e1', 'e2']);
    });

    it('an archived included fact hides the event from the archive on, but not before', () => {
      expect(eventIds(eventsAt(s.at(before(at('THU', '12:00'))), '*'))).toEqual(['e0', 'e1', 'e2']);
      expect(eventIds(eventsAt(s.at(at('THU', '12:00')), '*'))).toEqual(['e0', 'e2']);
      expect(eventIds(eventsAt(s.at(at('SUN')), '*'))).toEqual(['e0', 'e2']);
    });

    it('re-asserting the archived fact makes the event visible again from then on', () => {
      const t = given([
        ...seed,
        event('e1', ['f1'], { recordedAt: at('TUE') }),
        archive('f1', at('WED')),
        edge('alice', 'works_at', 'acme', { factId: 'f1', recordedAt: at('FRI') }),
      ]);
      expect(eventIds(eventsAt(t.at(at('THU')), '*'))).toEqual([]);
      expect(eventIds(eventsAt(t.at(at('FRI')), '*'))).toEqual(['e1']);
    });

    it.each([
      // e0 spans [MON, TUE): in one ms before TUE, out at TUE
      ['one ms before timeSpan.from', before(at('TUE')), ['e0']],
      ['exactly at timeSpan.from', at('TUE'), ['e1']],
      ['one ms before timeSpan.to', before(at('THU')), ['e1', 'e2']],
      ['exactly at timeSpan.to', at('THU'), ['e2']],
    ])('with validAt %s, lists only events whose timeSpan contains it', (_, validAt, expected) => {
      expect(eventIds(eventsAt(s.at(at('WED', '12:00')), validAt))).toEqual(expected);
    });

    it('with validAt, an event of an open timeSpan is listed from its start on', () => {
      expect(eventIds(eventsAt(s.at(at('WED', '12:00')), before(at('WED'))))).toEqual(['e1']);
      expect(eventIds(eventsAt(s.at(at('WED', '12:00')), at('WED')))).toEqual(['e1', 'e2']);
      expect(eventIds(eventsAt(s.at(at('WED', '12:00')), '9999-01-01T00:00:00.000Z'))).toEqual(['e2']);
    });
  });
});

describe('UPSERT_EVENT over time', () => {
  it('participants are shown by their canonical id from a merge on, by their own id before it', () => {
    const s = given([
      ...seed,
      entity('al', 'Al', { recordedAt: at('MON') }),
      event('e1', ['f1'], { participants: [{ entityId: 'al', role: 'employee' }], recordedAt: at('TUE') }),
      { op: 'MERGE_ENTITY', srcId: 'al', dstId: 'alice', recordedAt: at('WED') },
    ]);
    expect(eventsAt(s.at(before(at('WED'))), '*')[0]!.participants).toEqual([{ entityId: 'al', role: 'employee' }]);
    expect(eventsAt(s.at(at('WED')), '*')[0]!.participants).toEqual([{ entityId: 'alice', role: 'employee' }]);
  });

  it('a retro-corrected (superseded) included fact is still believed: the event stays visible', () => {
    const s = given([
      ...seed,
      entity('beta', 'Beta', { recordedAt: at('MON') }),
      { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one', recordedAt: at('MON') },
      event('e1', ['f1'], { recordedAt: at('TUE') }),
      edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU') }),
    ]);
    expect(s.state.facts.get('f1')!.versions).toHaveLength(2);
    expect(eventIds(eventsAt(s.at(at('THU')), '*'))).toEqual(['e1']);
  });

  it('a re-upserted event is shown as recorded at each record time', () => {
    const s = given([
      ...seed,
      event('e1', ['f1'], { recordedAt: at('TUE') }),
      archive('f1', at('WED')),
      event('e1', ['f2'], { summary: 'v2', recordedAt: at('THU') }),
    ]);
    expect(eventsAt(s.at(at('TUE')), '*').map((e) => [e.summary, e.includesFacts, e.recordedFrom])).toEqual([['summary of e1', ['f1'], at('TUE')]]);
    expect(eventsAt(s.at(at('WED')), '*')).toEqual([]);
    expect(eventsAt(s.at(at('THU')), '*').map((e) => [e.summary, e.includesFacts, e.recordedFrom])).toEqual([['v2', ['f2'], at('THU')]]);
  });
});

describe('LINK', () => {
  const withEvents = [...seed, event('e1', ['f1'], { recordedAt: at('TUE') }), event('e2', ['f2'], { recordedAt: at('TUE') })];

  it('links two known events', () => {
    const s = given(withEvents);
    const { records, results } = s.when({ op: 'LINK', kind: 'causal', from: 'e1', to: 'e2', qualifier: 'because', recordedAt: at('WED') });
    expect(bare(records)).toEqual([{ type: 'EventsLinked', data: { kind: 'causal', from: 'e1', to: 'e2', qualifier: 'because' } }]);
    expect(results[0]).toMatchObject({ status: 'applied', ids: { from: 'e1', to: 'e2' } });
  });

  it.each([
    ['from', { from: 'nope', to: 'e2' }],
    ['to', { from: 'e1', to: 'nope' }],
  ])('an unknown %s event is 404 UNKNOWN_EVENT', (field, ends) => {
    const s = given(withEvents);
    const error = s.rejects({ op: 'LINK', kind: 'temporal', ...ends });
    expect(error).toMatchObject({ code: 'UNKNOWN_EVENT' });
    expect(error.details).toMatchObject({ field, eventId: 'nope' });
  });

  it('is unchanged when relinked with the same qualifier, applied with another', () => {
    const s = given([...withEvents, { op: 'LINK', kind: 'related_to', from: 'e1', to: 'e2' }]);
    expect(s.when({ op: 'LINK', kind: 'related_to', from: 'e1', to: 'e2' }).results[0]!.status).toBe('unchanged');
    expect(s.when({ op: 'LINK', kind: 'related_to', from: 'e1', to: 'e2', qualifier: 'q' }).results[0]!.status).toBe('applied');
    // another kind between the same events is another link
    expect(s.when({ op: 'LINK', kind: 'subevent', from: 'e1', to: 'e2' }).results[0]!.status).toBe('applied');
  });
});

describe('UPSERT_EPISODE', () => {
  const withEvents = [
    ...seed,
    event('e1', ['f1'], { recordedAt: at('TUE') }),
    event('e2', ['f2'], { recordedAt: at('TUE') }),
    event('e3', ['f2'], { recordedAt: at('WED') }),
  ];

  it('records an episode with a derived id', () => {
    const s = given(withEvents);
    const { records, results } = s.when({
      op: 'UPSERT_EPISODE',
      title: 'Week 19',
      window: { from: at('MON') },
      events: ['e1', 'e2'],
      recordedAt: at('WED'),
    });
    const episodeId = deriveEpisodeId(MEMORY, 'Week 19', at('MON'));
    expect(bare(records)).toEqual([
      { type: 'EpisodeRecorded', data: { episodeId, title: 'Week 19', window: { from: at('MON'), to: null }, events: ['e1', 'e2'] } },
    ]);
    expect(results[0]).toMatchObject({ status: 'applied', ids: { episodeId } });
  });

  it('an unknown event is 404 UNKNOWN_EVENT', () => {
    const s = given(withEvents);
    expect(s.rejects({ op: 'UPSERT_EPISODE', title: 'x', window: { from: at('MON') }, events: ['e1', 'nope'] })).toMatchObject({
      code: 'UNKNOWN_EVENT',
    });
  });

  it('is unchanged when re-upserted identically', () => {
    const episode: CommandInput = { op: 'UPSERT_EPISODE', episodeId: 'ep', title: 'x', window: { from: at('MON') }, events: ['e1'] };
    const s = given([...withEvents, episode]);
    expect(s.when(episode).results[0]!.status).toBe('unchanged');
  });

  describe('visibility', () => {
    // ep lists e1 (includes f1, archived FRI) and e3; ep-1 lists only e1. Both recorded THU.
    const s = given([
      ...withEvents,
      {
        op: 'UPSERT_EPISODE',
        episodeId: 'ep',
        title: 'Week 19',
        window: { from: at('MON'), to: at('SUN') },
        events: ['e1', 'e3'],
        recordedAt: at('THU'),
      },
      { op: 'UPSERT_EPISODE', episodeId: 'ep-1', title: 'Only e1', window: { from: at('MON') }, events: ['e1'], recordedAt: at('THU') },
      archive('f1', at('FRI')),
    ]);
    const episodeIds = (r: string) => episodesAt(s.at(r), '*').map((e) => [e.episodeId, e.events]);

    it('is invisible before it was recorded, visible exactly at it', () => {
      expect(episodeIds(before(at('THU')))).toEqual([]);
      expect(episodesAt(s.at(at('THU')), '*')).toEqual([
        { episodeId: 'ep', title: 'Week 19', window: { from: at('MON'), to: at('SUN') }, events: ['e1', 'e3'], recordedFrom: at('THU') },
        { episodeId: 'ep-1', title: 'Only e1', window: { from: at('MON'), to: null }, events: ['e1'], recordedFrom: at('THU') },
      ]);
    });

    it('lists only its visible events, and is invisible when none is', () => {
      expect(episodeIds(before(at('FRI')))).toEqual([
        ['ep', ['e1', 'e3']],
        ['ep-1', ['e1']],
      ]);
      expect(episodeIds(at('FRI'))).toEqual([['ep', ['e3']]]);
    });
  });
});

describe('RECORD_MENTION', () => {
  it('records a mention with a derived id and null defaults', () => {
    const s = given();
    const { records, results } = s.when(mention('dialog-1', 'I work at Acme', { recordedAt: at('MON') }));
    const mentionId = deriveMentionId(MEMORY, 'dialog-1', 'I work at Acme', null);
    expect(mentionId).toMatch(/^men_[0-9a-f]{24}$/);
    expect(bare(records)).toEqual([
      { type: 'MentionRecorded', data: { mentionId, docId: 'dialog-1', text: 'I work at Acme', speaker: null, occurredAt: null } },
    ]);
    expect(results[0]).toMatchObject({ status: 'applied', ids: { mentionId } });
  });

  it('the derived id depends on docId, text, occurredAt and speaker', () => {
    const base = deriveMentionId(MEMORY, 'd', 't', null);
    expect(deriveMentionId(MEMORY, 'd', 't', null, 'user')).not.toBe(base);
    expect(deriveMentionId(MEMORY, 'd', 't', null, 'user')).not.toBe(deriveMentionId(MEMORY, 'd', 't', null, 'assistant'));
    expect(deriveMentionId(MEMORY, 'd', 't', at('MON'))).not.toBe(base);
    expect(deriveMentionId(MEMORY, 'd2', 't', null)).not.toBe(base);
    expect(deriveMentionId(MEMORY, 'd', 't2', null)).not.toBe(base);
    expect(deriveMentionId('other', 'd', 't', null)).not.toBe(base);
  });

  it('is visible iff recorded at or before the cut', () => {
    const s = given([
      mention('d', 'hello', { mentionId: 'm1', speaker: 'user', occurredAt: at('MON', '08:00'), recordedAt: at('MON', '09:00') }),
      mention('d', 'later', { mentionId: 'm2', recordedAt: at('TUE') }),
    ]);
    expect(mentionsAt(s.at(before(at('MON', '09:00'))))).toEqual([]);
    expect(mentionsAt(s.at(at('MON', '09:00')))).toEqual([
      { mentionId: 'm1', docId: 'd', text: 'hello', speaker: 'user', occurredAt: at('MON', '08:00'), recordedFrom: at('MON', '09:00') },
    ]);
    expect(mentionsAt(s.at(before(at('TUE')))).map((m) => m.mentionId)).toEqual(['m1']);
    expect(mentionsAt(s.at(at('TUE'))).map((m) => m.mentionId)).toEqual(['m1', 'm2']);
    expect(mentionsAt(s.at(after(at('TUE')))).map((m) => m.mentionId)).toEqual(['m1', 'm2']);
  });

  it('the same words from each side of a dialog, without ids, are two mentions', () => {
    const s = given();
    const { results } = s.when([
      mention('d', 'ok', { speaker: 'user', recordedAt: at('MON') }),
      mention('d', 'ok', { speaker: 'assistant', recordedAt: at('MON') }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['applied', 'applied']);
    expect(mentionsAt(s.state).map((m) => m.speaker)).toEqual(expect.arrayContaining(['user', 'assistant']));
  });

  it('the same content again is unchanged', () => {
    const s = given([mention('d', 'hello', { mentionId: 'm1', speaker: 'user' })]);
    const { records, results } = s.when(mention('d', 'hello', { mentionId: 'm1', speaker: 'user' }));
    expect(records.map((e) => e.type)).toEqual(['CommandUnchanged']); // no version: the log only remembers the command
    expect(results[0]).toMatchObject({ status: 'unchanged', ids: { mentionId: 'm1' } });
  });

  it.each([
    ['text', { text: 'bye' }],
    ['docId', { docId: 'other' }],
    ['speaker', { speaker: 'assistant' }],
    ['speaker (absent)', { speaker: undefined }],
    ['occurredAt', { occurredAt: at('TUE') }],
  ])('a different %s under the same mentionId is 409 MENTION_CONFLICT', (_, change) => {
    const s = given([mention('d', 'hello', { mentionId: 'm1', speaker: 'user' })]);
    const command = { ...mention('d', 'hello', { mentionId: 'm1', speaker: 'user' }), ...change };
    const error = s.rejects(JSON.parse(JSON.stringify(command)) as CommandInput);
    expect(error).toMatchObject({ code: 'MENTION_CONFLICT' });
    expect(error.details).toMatchObject({ mentionId: 'm1' });
  });
});

describe('UPSERT_TOPIC', () => {
  const topic = (members: string[], extra: object = {}): CommandInput => ({
    op: 'UPSERT_TOPIC',
    topicId: 't1',
    title: 'Work',
    summary: 'Alice and Bob at Acme.',
    window: { from: at('MON'), to: at('FRI') },
    members,
    ...extra,
  });

  it('keeps each member with its kind; lists only visible members; is gone when none is; 404s a member that is nothing', () => {
    const s = given([
      ...seed,
      mention('d1', 'Alice joined Acme', { mentionId: 'm1', recordedAt: at('MON') }),
      event('e1', ['f1'], { recordedAt: at('TUE') }),
    ]);
    const { records } = s.when({ ...topic(['m1', 'e1', 'f2', 'm1']), recordedAt: at('TUE') });
    expect(bare(records)).toEqual([
      {
        type: 'TopicRecorded',
        data: {
          topicId: 't1',
          title: 'Work',
          summary: 'Alice and Bob at Acme.',
          window: { from: at('MON'), to: at('FRI') },
          members: [
            { kind: 'mention', id: 'm1' },
            { kind: 'event', id: 'e1' },
            { kind: 'fact', id: 'f2' },
          ],
        },
      },
    ]);
    expect(s.when({ ...topic(['m1', 'e1', 'f2']), recordedAt: at('TUE') }).results[0]!.status).toBe('unchanged');
    s.when(archive('f1', at('WED')));
    const members = (r: Parameters<typeof at>[0], validAt: string = '*') => topicsAt(fold(s.log, at(r)), validAt).map((t) => t.members);
    expect(members('TUE')).toEqual([['m1', 'e1', 'f2']]);
    expect(members('WED')).toEqual([['m1', 'f2']]); // the event's evidence is no longer believed
    expect(members('TUE', at('SAT'))).toEqual([]); // outside its window
    expect(s.rejects(topic(['m1', 'nobody']))).toMatchObject({ code: 'UNKNOWN_MENTION', details: { field: 'members[1]' } });
  });
});
