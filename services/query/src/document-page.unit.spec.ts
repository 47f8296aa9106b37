import type { MentionView } from '@memotrace/domain';
import { documentPage } from './document-page';

const doc: MentionView[] = ['t1', 't2', 't3', 't4', 't5'].map((mentionId) => ({
  mentionId,
  docId: 'd',
  text: mentionId,
  speaker: null,
  occurredAt: null,
  recordedFrom: '2024-05-06T00:00:00.000Z',
}));
const ids = (page: ReturnType<typeof documentPage>) => page && { mentions: page.mentions.map((m) => m.mentionId), next: page.next };

describe('documentPage', () => {
  it("pages through a document: each page starts after the previous one's next, the last has none", () => {
    expect(ids(documentPage(doc, undefined, 2))).toEqual({ mentions: ['t1', 't2'], next: 't2' });
    expect(ids(documentPage(doc, 't2', 2))).toEqual({ mentions: ['t3', 't4'], next: 't4' });
    expect(ids(documentPage(doc, 't4', 2))).toEqual({ mentions: ['t5'], next: null });
  });

  it('has no next when a page ends exactly at the last mention', () => {
    expect(ids(documentPage(doc, undefined, 5))).toEqual({ mentions: ['t1', 't2', 't3', 't4', 't5'], next: null });
    expect(ids(documentPage(doc, 't3', 2))).toEqual({ mentions: ['t4', 't5'], next: null });
    expect(ids(documentPage(doc, 't5', 2))).toEqual({ mentions: [], next: null });
  });

  it('answers an empty document with an empty page', () => {
    expect(ids(documentPage([], undefined, 100))).toEqual({ mentions: [], next: null });
  });

  it('is null when `after` is no mention of the document', () => {
    expect(documentPage(doc, 'nope', 2)).toBeNull();
    expect(documentPage([], 't1', 2)).toBeNull();
  });
});
