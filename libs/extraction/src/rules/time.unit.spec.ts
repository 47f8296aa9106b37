import { resolveTimeSpan } from './time';

// A Wednesday evening.
const AT = '2024-03-13T18:00:00.000Z';

describe('resolveTimeSpan', () => {
  it.each([
    ['Yesterday I fixed the old bike.', true, '2024-03-12T00:00:00.000Z', '2024-03-13T00:00:00.000Z'],
    ['Last Saturday we baked bread.', true, '2024-03-09T00:00:00.000Z', '2024-03-10T00:00:00.000Z'],
    ['Next month I start a pottery class.', false, '2024-04-01T00:00:00.000Z', '2024-05-01T00:00:00.000Z'],
    ['In 2022 I sold my first painting.', true, '2022-01-01T00:00:00.000Z', '2023-01-01T00:00:00.000Z'],
    ['Last week I repainted the kitchen.', true, '2024-03-04T00:00:00.000Z', '2024-03-11T00:00:00.000Z'],
    ['Three years ago I learned to sail.', true, '2021-01-01T00:00:00.000Z', '2022-01-01T00:00:00.000Z'],
    ['On Friday I went to a concert.', true, '2024-03-08T00:00:00.000Z', '2024-03-09T00:00:00.000Z'],
  ])('%s', (text, past, from, to) => {
    const span = resolveTimeSpan(text, AT, past);
    expect({ from: span.from, to: span.to }).toEqual({ from, to });
    expect(span.expression).not.toBeNull();
  });

  it('falls back to the day of the turn when the sentence names no time', () => {
    expect(resolveTimeSpan('I fixed the old bike.', AT, true)).toEqual({
      from: '2024-03-13T00:00:00.000Z',
      to: '2024-03-14T00:00:00.000Z',
      expression: null,
    });
  });

  it('does not read a time of day alone as a date', () => {
    expect(resolveTimeSpan('I usually wake up at 6 and run.', AT, false).expression).toBeNull();
  });
});
