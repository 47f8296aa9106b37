import { cutFromSearch, cutQuery, describeCut, formatInstant, fromInputValue, modeOf, toInputValue } from './cut';

const WED = '2024-05-08T12:00:00.000Z';

describe('the cut in the URL', () => {
  it('reads validAt and recordedAt, * included, and drops what is not an instant', () => {
    expect(cutFromSearch(`?validAt=${WED}&recordedAt=${WED}`)).toEqual({ validAt: WED, recordedAt: WED });
    expect(cutFromSearch('?validAt=*')).toEqual({ validAt: '*', recordedAt: undefined });
    expect(cutFromSearch('?validAt=wednesday&recordedAt=2024-13-45T00:00:00Z')).toEqual({ validAt: undefined, recordedAt: undefined });
  });

  it('names the cut: As-World, As-Recorded or both times', () => {
    expect(modeOf({ validAt: WED, recordedAt: undefined })).toBe('as-world');
    expect(modeOf({ validAt: WED, recordedAt: '2024-05-08T12:00:00Z' })).toBe('as-recorded');
    expect(modeOf({ validAt: '*', recordedAt: WED })).toBe('bitemporal');
    expect(describeCut({ validAt: WED, recordedAt: WED })).toBe('As-Recorded@2024-05-08 12:00 UTC');
    expect(describeCut({ validAt: undefined, recordedAt: undefined })).toBe('As-World@now');
  });

  it('writes the cut back readable, with the page’s other parameters', () => {
    expect(cutQuery({ validAt: '*', recordedAt: WED }, { q: 'Alice works', k: undefined })).toBe(`?validAt=*&recordedAt=${WED}&q=Alice+works`);
    expect(cutQuery({ validAt: undefined, recordedAt: undefined })).toBe('');
  });

  it('shows and reads times in UTC in the datetime inputs', () => {
    expect(toInputValue(WED)).toBe('2024-05-08T12:00:00');
    expect(fromInputValue('2024-05-08T12:00')).toBe(WED);
    expect(fromInputValue('2024-05-08T')).toBeUndefined();
    expect(formatInstant('2024-05-08T12:00:30.000Z')).toBe('2024-05-08 12:00:30 UTC');
    expect(formatInstant(null)).toBe('∞');
  });
});
