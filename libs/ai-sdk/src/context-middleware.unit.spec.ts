import { lastUserText, renderContext } from './context-middleware';

describe('the memory context', () => {
  it("queries with the last user message's text parts", () => {
    const prompt = [
      { role: 'system' as const, content: 'be brief' },
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'first question' }] },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'an answer' }] },
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: ' Where does Alice work?' },
          { type: 'file' as const, data: 'aGk=', mediaType: 'text/plain' },
          { type: 'text' as const, text: 'And since when? ' },
        ],
      },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'let me look' }] },
    ];
    expect(lastUserText(prompt)).toBe('Where does Alice work?\nAnd since when?');
    expect(lastUserText([{ role: 'system', content: 'only instructions' }])).toBe('');
  });

  it('names each item by kind and id, with when a fact holds', () => {
    const text = renderContext(
      [
        {
          kind: 'fact',
          id: 'f1',
          text: 'Alice works at Acme',
          score: 1,
          tokens: 5,
          recordedFrom: 'r',
          validFrom: '2024-05-06T00:00:00.000Z',
          validTo: null,
          evidence: [],
          salience: 0.5,
        },
        { kind: 'mention', id: 'm1', text: 'Alice: hi', score: 0.5, tokens: 3, recordedFrom: 'r', evidence: [], salience: 0.2 },
      ],
      '2024-06-01T00:00:00.000Z',
    );
    expect(text.split('\n')).toEqual([
      "What the memory (MemoTrace) knows that bears on the user's message, as believed at 2024-06-01T00:00:00.000Z, most relevant first:",
      '- [fact f1, holds 2024-05-06T00:00:00.000Z to now] Alice works at Acme',
      '- [mention m1] Alice: hi',
    ]);
  });
});
