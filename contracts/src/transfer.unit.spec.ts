import { MAX_ERROR_DETAILS } from './errors';
import { parseImportJsonl, toJsonlLine } from './transfer';

const line = (c: Record<string, unknown>) => JSON.stringify(c);
const base = { commandId: 'c1', recordedAt: '2024-05-01T09:30:00Z' };

describe('JSONL import', () => {
  it('parses lines into domain commands, skipping blank lines and CRLF', () => {
    const body = [
      line({ op: 'UPSERT_ENTITY', name: 'Alice', entityId: 'alice', ...base }),
      '',
      line({ op: 'ARCHIVE_EDGE', factId: 'f1', commandId: 'c2', recordedAt: '2024-05-01T11:30:00+02:00' }) + '\r',
      '',
    ].join('\n');
    expect(parseImportJsonl(body)).toStrictEqual({
      ok: true,
      commands: [
        { op: 'UPSERT_ENTITY', name: 'Alice', entityId: 'alice', commandId: 'c1', recordedAt: '2024-05-01T09:30:00.000Z' },
        { op: 'ARCHIVE_EDGE', factId: 'f1', commandId: 'c2', recordedAt: '2024-05-01T09:30:00.000Z' },
      ],
      lines: [1, 3],
    });
  });

  it('ignores a byte order mark before the first line', () => {
    const body = '\uFEFF' + line({ op: 'UPSERT_ENTITY', name: 'Alice', entityId: 'alice', ...base });
    expect(parseImportJsonl(body)).toStrictEqual({
      ok: true,
      commands: [{ op: 'UPSERT_ENTITY', name: 'Alice', entityId: 'alice', commandId: 'c1', recordedAt: '2024-05-01T09:30:00.000Z' }],
      lines: [1],
    });
  });

  it('treats an empty body as an empty log', () => {
    expect(parseImportJsonl('')).toStrictEqual({ ok: true, commands: [], lines: [] });
  });

  it('reports bad lines by 1-based line number', () => {
    const body = [
      line({ op: 'ARCHIVE_EDGE', factId: 'f1', ...base }),
      '{not json',
      line({ op: 'ARCHIVE_EDGE', factId: 'f1' }),
      line({ op: 'ARCHIVE_EDGE', factId: '', ...base }),
      '[]',
    ].join('\n');
    expect(parseImportJsonl(body)).toStrictEqual({
      ok: false,
      details: [
        { path: 'line.2', message: 'is not valid JSON' },
        { path: 'line.3.commandId', message: 'is required in an import line' },
        { path: 'line.3.recordedAt', message: 'is required in an import line' },
        { path: 'line.4.factId', message: expect.any(String) },
        { path: 'line.5', message: expect.any(String) },
      ],
    });
  });

  it('caps the number of details', () => {
    const r = parseImportJsonl(Array(250).fill('x').join('\n'));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.details).toHaveLength(MAX_ERROR_DETAILS + 1);
      expect(r.details.at(-1)).toEqual({ path: '', message: 'and 150 more problems not listed' });
    }
  });

  it('round-trips an exported line', () => {
    const command = { op: 'LINK' as const, kind: 'causal' as const, from: 'e1', to: 'e2', commandId: 'c9', recordedAt: '2024-05-01T09:30:00.000Z' };
    expect(parseImportJsonl(`${toJsonlLine(command)}\n`)).toStrictEqual({ ok: true, commands: [command], lines: [1] });
  });
});
