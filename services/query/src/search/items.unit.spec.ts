import type { EpisodeView, EventView, FactView, MentionView } from '@memotrace/domain';
import {
  type SearchableEvent,
  type SearchableFact,
  type SearchableMention,
  episodeCandidate,
  eventCandidate,
  factCandidate,
  factText,
  isSearchableEvent,
  isSearchableFact,
  isSearchableMention,
  mentionCandidate,
  mentionText,
  relationPhrase,
} from './items';

const MON = '2024-05-06T00:00:00.000Z';
const WED = '2024-05-08T00:00:00.000Z';
const THU = '2024-05-09T10:00:00.000Z';
const names: Record<string, string> = { alice: 'Alice', acme: 'Acme Corp' };
const nameOf = (id: string) => names[id] ?? id;

function fact(overrides: Partial<SearchableFact> = {}): SearchableFact {
  return {
    factId: 'alice-acme',
    src: 'alice',
    rel: 'works_at',
    dst: 'acme',
    validFrom: MON,
    validTo: WED,
    recordedFrom: THU,
    recordedTo: null,
    confidence: null,
    evidence: [],
    source: null,
    ...overrides,
  };
}

describe('item texts', () => {
  it('renders a fact as a sentence with entity names', () => {
    expect(factText(fact(), nameOf)).toBe('Alice works at Acme Corp');
  });

  it('renders a literal target by its value, and an unnamed entity by its id', () => {
    expect(factText(fact({ rel: 'age', dst: { literal: 42, datatype: 'number' } }), nameOf)).toBe('Alice age 42');
    expect(factText(fact({ rel: 'active', dst: { literal: false, datatype: 'boolean' } }), nameOf)).toBe('Alice active false');
    expect(factText(fact({ rel: 'nickname', dst: { literal: 'Ali', datatype: 'string' } }), nameOf)).toBe('Alice nickname Ali');
    expect(factText(fact({ src: 'ghost', dst: 'acme' }), nameOf)).toBe('ghost works at Acme Corp');
  });

  it('turns relation names into words', () => {
    expect(relationPhrase('works_at')).toBe('works at');
    expect(relationPhrase('bornIn')).toBe('born in');
    expect(relationPhrase('member-of')).toBe('member of');
    expect(relationPhrase('__')).toBe('__');
  });

  it('renders a mention as "speaker: text", or its text alone', () => {
    expect(mentionText({ speaker: 'Alice', text: 'I moved to Beta' })).toBe('Alice: I moved to Beta');
    expect(mentionText({ speaker: null, text: 'I moved to Beta' })).toBe('I moved to Beta');
    expect(mentionText({ speaker: ' ', text: 'hi' })).toBe('hi');
  });
});

describe('item time fields and evidence links', () => {
  it('a fact carries its validity, record start, and its evidence mentions visible in the cut', () => {
    const candidate = factCandidate(fact({ evidence: ['m1', 'm-later', 'm1', 'm2'] }), nameOf, new Set(['m1', 'm2']));
    expect(candidate).toEqual({
      kind: 'fact',
      id: 'alice-acme',
      text: 'Alice works at Acme Corp',
      recordedFrom: THU,
      validFrom: MON,
      validTo: WED,
      evidence: [
        { kind: 'mention', id: 'm1' },
        { kind: 'mention', id: 'm2' },
      ],
      entities: ['alice', 'acme'],
      subject: 'Alice',
    });
    expect(factCandidate(fact({ validTo: null }), nameOf, new Set()).validTo).toBeNull();
  });

  it('an event carries its time span and its included facts', () => {
    const event: SearchableEvent = {
      eventId: 'ev1',
      summary: 'Alice moved to Beta',
      timeSpan: { from: WED, to: null },
      participants: [{ entityId: 'alice', role: 'agent' }],
      includesFacts: ['alice-beta', 'alice-acme'],
      recordedFrom: THU,
    };
    expect(eventCandidate(event)).toEqual({
      kind: 'event',
      id: 'ev1',
      text: 'Alice moved to Beta',
      recordedFrom: THU,
      validFrom: WED,
      validTo: null,
      evidence: [
        { kind: 'fact', id: 'alice-beta' },
        { kind: 'fact', id: 'alice-acme' },
      ],
      entities: ['alice'],
    });
  });

  it('an episode carries its window and its visible events', () => {
    const episode: EpisodeView = { episodeId: 'week', title: 'The move week', window: { from: MON, to: THU }, events: ['ev1'], recordedFrom: THU };
    expect(episodeCandidate(episode)).toEqual({
      kind: 'episode',
      id: 'week',
      text: 'The move week',
      recordedFrom: THU,
      validFrom: MON,
      validTo: THU,
      evidence: [{ kind: 'event', id: 'ev1' }],
    });
  });

  it('a mention carries occurredAt and its speaker when it has them, no validity, and no evidence', () => {
    const mention: SearchableMention = { mentionId: 'm1', docId: 'chat-1', text: 'I moved', speaker: 'Alice', occurredAt: WED, recordedFrom: THU };
    expect(mentionCandidate(mention)).toEqual({
      kind: 'mention',
      id: 'm1',
      text: 'Alice: I moved',
      recordedFrom: THU,
      occurredAt: WED,
      evidence: [],
      docId: 'chat-1',
      speaker: 'Alice',
    });
    expect(mentionCandidate({ ...mention, occurredAt: null })).not.toHaveProperty('occurredAt');
    expect(mentionCandidate({ ...mention, speaker: null })).not.toHaveProperty('speaker');
  });
});

describe('erased items are no search items', () => {
  it('a fact with an erased literal, or marked erased (naming an erased entity), is none', () => {
    expect(isSearchableFact(fact())).toBe(true);
    expect(isSearchableFact({ ...fact(), dst: null, erased: true } satisfies FactView)).toBe(false);
    expect(isSearchableFact({ ...fact(), erased: true } satisfies FactView)).toBe(false);
    // Read after its key was destroyed, before the erasure reached the read models: null content alone.
    expect(isSearchableFact({ ...fact(), dst: null } satisfies FactView)).toBe(false);
  });

  it('an event with an erased summary, or a mention with an erased text, is none', () => {
    const event: EventView = {
      eventId: 'ev1',
      summary: 'Alice moved',
      timeSpan: { from: WED, to: null },
      participants: [],
      includesFacts: [],
      recordedFrom: THU,
    };
    expect(isSearchableEvent(event)).toBe(true);
    expect(isSearchableEvent({ ...event, summary: null, erased: true })).toBe(false);
    expect(isSearchableEvent({ ...event, summary: null })).toBe(false);
    const mention: MentionView = { mentionId: 'm1', docId: 'd', text: 'hi', speaker: 'Alice', occurredAt: null, recordedFrom: THU };
    expect(isSearchableMention(mention)).toBe(true);
    expect(isSearchableMention({ ...mention, text: null, speaker: null, erased: true })).toBe(false);
    expect(isSearchableMention({ ...mention, text: null })).toBe(false);
  });
});
