import { instantOfEpochMs, instantOrNullOfEpochMs, pgInstant, pgInstantOrNull } from './instants';

describe('instants across PostgreSQL', () => {
  it('passes canonical instants through, and maps ISO year 0000 to 1 BC (PostgreSQL has no year 0)', () => {
    expect(pgInstant('2024-05-01T09:30:00.000Z')).toBe('2024-05-01T09:30:00.000Z');
    expect(pgInstant('0000-02-29T23:59:59.999Z')).toBe('0001-02-29T23:59:59.999Z BC');
    expect(pgInstant('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
    expect(pgInstantOrNull(null)).toBeNull();
  });

  it('reads epoch milliseconds (as pg returns bigint: string or number) back to canonical instants', () => {
    expect(instantOfEpochMs('1714555800123')).toBe('2024-05-01T09:30:00.123Z');
    expect(instantOfEpochMs(-62167219200000)).toBe('0000-01-01T00:00:00.000Z');
    expect(instantOfEpochMs('253402300799999')).toBe('9999-12-31T23:59:59.999Z');
    expect(instantOrNullOfEpochMs(null)).toBeNull();
  });
});
