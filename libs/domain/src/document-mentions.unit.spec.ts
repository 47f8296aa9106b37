import { documentMentionsAt, mentionAt } from './cut';
import { at, before, given, mention } from './testing/given';
import { type MentionView, compareDocumentOrder } from './views';

/**
 * A document's mentions in document order (SPEC §5.1: a session's turns, docId = sessionId), and one
 * mention by id, each at a record time (SPEC §3.2: a mention is visible once recorded).
 *   MON 09:00  session s1: D1:10 and D1:9 at MON 08:00, D1:2 at MON 07:00; D2:1 of session s2
 *   TUE 09:00  s1: D1:1 with no occurredAt, D1:11 at MON 08:00
 */
function dialog() {
  const first = at('MON', '09:00');
  const second = at('TUE', '09:00');
  return given([
    mention('s1', 'ten', { mentionId: 'D1:10', occurredAt: at('MON', '08:00'), speaker: 'Ann', recordedAt: first }),
    mention('s1', 'nine', { mentionId: 'D1:9', occurredAt: at('MON', '08:00'), speaker: 'Bob', recordedAt: first }),
    mention('s1', 'two', { mentionId: 'D1:2', occurredAt: at('MON', '07:00'), recordedAt: first }),
    mention('s2', 'other session', { mentionId: 'D2:1', occurredAt: at('MON', '06:00'), recordedAt: first }),
    mention('s1', 'undated', { mentionId: 'D1:1', recordedAt: second }),
    mention('s1', 'eleven', { mentionId: 'D1:11', occurredAt: at('MON', '08:00'), recordedAt: second }),
  ]);
}

const ids = (mentions: MentionView[]) => mentions.map((m) => m.mentionId);

describe('documentMentionsAt', () => {
  const s = dialog();

  it('lists one document, by occurredAt, then by mentionId in natural order, those without occurredAt last', () => {
    expect(ids(documentMentionsAt(s.at(), 's1'))).toEqual(['D1:2', 'D1:9', 'D1:10', 'D1:11', 'D1:1']);
    expect(ids(documentMentionsAt(s.at(), 's2'))).toEqual(['D2:1']);
  });

  it('shows only what is recorded at the record time, and nothing before the first mention', () => {
    expect(ids(documentMentionsAt(s.at(at('MON', '09:00')), 's1'))).toEqual(['D1:2', 'D1:9', 'D1:10']);
    expect(ids(documentMentionsAt(s.at(before(at('TUE', '09:00'))), 's1'))).toEqual(['D1:2', 'D1:9', 'D1:10']);
    expect(documentMentionsAt(s.at(before(at('MON', '09:00'))), 's1')).toEqual([]);
  });

  it('answers no mention for an unknown document', () => {
    expect(documentMentionsAt(s.at(), 'nope')).toEqual([]);
  });

  it('answers each mention as recorded', () => {
    expect(documentMentionsAt(s.at(), 's1')[1]).toEqual({
      mentionId: 'D1:9',
      docId: 's1',
      text: 'nine',
      speaker: 'Bob',
      occurredAt: at('MON', '08:00'),
      recordedFrom: at('MON', '09:00'),
    });
  });
});

describe('mentionAt', () => {
  const s = dialog();

  it('answers a mention from its record time on, and null before it or for an unknown id', () => {
    expect(mentionAt(s.at(), 'D1:1')).toEqual({
      mentionId: 'D1:1',
      docId: 's1',
      text: 'undated',
      speaker: null,
      occurredAt: null,
      recordedFrom: at('TUE', '09:00'),
    });
    expect(mentionAt(s.at(at('TUE', '09:00')), 'D1:1')).not.toBeNull();
    expect(mentionAt(s.at(before(at('TUE', '09:00'))), 'D1:1')).toBeNull();
    expect(mentionAt(s.at(), 'nope')).toBeNull();
  });
});

describe('compareDocumentOrder', () => {
  const view = (mentionId: string, occurredAt: string | null): MentionView => ({
    mentionId,
    docId: 'd',
    text: '',
    speaker: null,
    occurredAt,
    recordedFrom: at('MON'),
  });

  it('is a total order: ids the collator calls equal still sort, bytewise', () => {
    // The same letter composed and decomposed: equal to the collator, distinct ids.
    const composed = view('caf\u00e9', null);
    const decomposed = view('cafe\u0301', null);
    expect(Math.sign(compareDocumentOrder(composed, decomposed))).toBe(-Math.sign(compareDocumentOrder(decomposed, composed)));
    expect(compareDocumentOrder(composed, decomposed)).not.toBe(0);
    expect(compareDocumentOrder(composed, view('caf\u00e9', null))).toBe(0);
  });

  it('puts an earlier occurredAt first whatever the ids, and a missing one last', () => {
    const sorted = [view('a10', null), view('a2', at('TUE')), view('a1', at('WED')), view('a3', at('TUE'))].sort(compareDocumentOrder);
    expect(sorted.map((m) => m.mentionId)).toEqual(['a2', 'a3', 'a1', 'a10']);
  });
});
