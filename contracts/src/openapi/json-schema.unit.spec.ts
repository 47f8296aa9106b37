import Ajv2020 from 'ajv/dist/2020';
import { commandsRequest } from '../commands';
import { searchRequest } from '../queries';
import { buildComponentSchemas } from './components';

/**
 * The generated component schemas are valid JSON Schema 2020-12 (compiled with Ajv,
 * which Fastify uses) and agree with the zod schemas on representative inputs.
 */
describe('generated JSON Schemas', () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'https://memotrace.invalid/openapi', components: { schemas: buildComponentSchemas() } });
  const compiled = (name: string) => {
    const v = ajv.getSchema(`https://memotrace.invalid/openapi#/components/schemas/${name}`);
    if (!v) throw new Error(`no schema ${name}`);
    return v;
  };

  it('compile, every one of them', () => {
    for (const name of Object.keys(buildComponentSchemas())) expect(typeof compiled(name)).toBe('function');
  });

  const T0 = '2024-05-01T09:30:00+02:00';
  it.each([
    [{ commands: [{ op: 'UPSERT_ENTITY', name: 'Alice', aliases: ['Al'] }] }, true],
    [{ commands: [{ op: 'UPSERT_EDGE', src: 'a', rel: 'r', dst: { literal: 5 }, validFrom: T0, validTo: null, confidence: 0.5 }] }, true],
    [{ commands: [{ op: 'UPSERT_EVENT', summary: 's', includesFacts: [], timeSpan: { from: T0, to: null } }] }, true],
    [{ commands: [{ op: 'RECORD_MENTION', docId: 'd', text: 't', occurredAt: '2024-05-01T09:30:00.123Z' }] }, true],
    [{ commands: [] }, false],
    [{ commands: [{ op: 'ARCHIVE_EDGE', factId: 'f', extra: 1 }] }, false],
    [{ commands: [{ op: 'ARCHIVE_EDGE', factId: '' }] }, false],
    [{ commands: [{ op: 'ARCHIVE_EDGE', factId: 'f', recordedAt: '2024-05-01T09:30:00' }] }, false],
    [{ commands: [{ op: 'ARCHIVE_EDGE', factId: 'f', recordedAt: '2024-05-01T09:30:00.1234Z' }] }, false],
    [{ commands: [{ op: 'UPSERT_EDGE', src: 'a', rel: 'r', dst: 5 }] }, false],
    [{ commands: [{ op: 'LINK', kind: 'x', from: 'a', to: 'b' }] }, false],
    [{ commands: [{ op: 'NOPE' }] }, false],
  ])('CommandsRequest agrees with zod on %j', (input, valid) => {
    expect(commandsRequest.safeParse(input).success).toBe(valid);
    expect(compiled('CommandsRequest')(input)).toBe(valid);
  });

  it.each([
    [{ query: 'q' }, true],
    [{ query: 'q', k: 5, validAt: '*', tokenBudget: 600 }, true],
    [{ query: 'q', k: 0, tokenBudget: 0 }, true],
    [{ query: 'q', k: -1 }, false],
    [{ query: 'q', k: 1001 }, false],
    [{ query: 'q', other: 1 }, false],
    [{}, false],
  ])('SearchRequest agrees with zod on %j', (input, valid) => {
    expect(searchRequest.safeParse(input).success).toBe(valid);
    expect(compiled('SearchRequest')(input)).toBe(valid);
  });
});
