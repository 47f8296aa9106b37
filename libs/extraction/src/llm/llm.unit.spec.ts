import { id, wireCommand } from '@memotrace/contracts';
import { deriveEntityId, deriveFactId } from '@memotrace/domain';
import { readAnswer } from './answer';
import { ExtractionFailedError, failureSummary } from '../errors';
import { llmExtractorFromEnv, llmExtractorVersion } from './llm-extractor';
import { buildMessages } from './prompt';
import { responseFormat } from './schema';
import { dialog, goodAnswer, MEMORY_ID, mixedAnswer } from './testing/dialog';

// Prompt building and answer reading, without any call: the local-server spec covers the HTTP side.

const item = (command: object, turns = ['t1'], confidence = 0.9) => ({ command, confidence, turns, why: 'test' });
const read = (answer: unknown) => readAnswer(JSON.stringify(answer), dialog);

describe('prompt', () => {
  const [system, user] = buildMessages(dialog);

  it('carries the known entities with ids, names, aliases and types', () => {
    expect(user!.role).toBe('user');
    expect(user!.content).toContain('{"id":"ent_maya","name":"Maya","aliases":["May"],"types":["person"]}');
    expect(user!.content).toContain('{"id":"ent_jonas","name":"Jonas","aliases":[],"types":["person"]}');
  });

  it('carries the window as context without ids, then the turns with their ids, at and weekday', () => {
    const lines = user!.content.split('\n');
    const context = lines.indexOf('Context (earlier turns; derive nothing from them):');
    const turns = lines.indexOf('Turns to derive from:');
    expect(context).toBeGreaterThan(0);
    expect(turns).toBeGreaterThan(context);
    const windowLine = JSON.parse(lines[context + 1]!);
    expect(windowLine).toEqual({ at: '2024-05-08T14:59:00.000Z', weekday: 'Wednesday', speaker: 'Jonas', text: dialog.window[0]!.text });
    expect(lines.slice(turns + 1).map((l) => JSON.parse(l))).toEqual(
      dialog.turns.map((t) => ({ id: t.mentionId, at: t.at, weekday: 'Wednesday', speaker: t.speaker, text: t.text })),
    );
  });

  it('says none when there are no entities or context', () => {
    const [, bare] = buildMessages({ ...dialog, entities: [], window: [] });
    expect(bare!.content).toMatch(
      /^Known entities:\n\(none\)\n\nRelations the memory knows:\n\(none\)\n\nContext \(earlier turns; derive nothing from them\):\n\(none\)\n/,
    );
  });

  it('asks for relative time against the turn, and for DSL changes instead of deletions', () => {
    expect(system!.role).toBe('system');
    expect(system!.content).toContain('Resolve relative time against the "at" of');
    expect(system!.content).toContain('nothing can be deleted or archived');
    expect(system!.content).not.toMatch(/ARCHIVE_EDGE|RETRO_CORRECT|ERASE/);
  });
});

describe('response format', () => {
  const format = responseFormat(['t1', 't2']);
  const objects: Record<string, unknown>[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      if ((node as { type?: unknown }).type === 'object') objects.push(node as Record<string, unknown>);
      Object.values(node).forEach(walk);
    }
  };
  walk(format.json_schema.schema);

  it('is a strict json_schema whose commands are the derivable ops only', () => {
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.strict).toBe(true);
    const text = JSON.stringify(format.json_schema.schema);
    const ops = [...text.matchAll(/"const":"([A-Z_]+)"/g)].map((m) => m[1]);
    expect(ops).toEqual(['UPSERT_ENTITY', 'MERGE_ENTITY', 'DEFINE_RELATION', 'UPSERT_EDGE', 'UPSERT_EVENT']);
    expect(text).not.toContain('$schema');
    expect(text).not.toMatch(/minLength|maxLength/);
  });

  it('lists the turn ids as the only citable turns', () => {
    const schema = format.json_schema.schema as any;
    expect(schema.properties.items.items.properties.turns).toMatchObject({
      type: 'array',
      minItems: 1,
      items: { type: 'string', enum: ['t1', 't2'] },
    });
  });

  it('closes every object and requires all its properties, as strict structured output wants', () => {
    expect(objects.length).toBeGreaterThan(8);
    for (const o of objects) {
      expect(o['additionalProperties']).toBe(false);
      expect(o['required']).toEqual(Object.keys(o['properties'] as object));
    }
  });
});

describe('reading an answer', () => {
  it('turns a good answer into derived commands that pass the contracts, in an order the memory can apply', () => {
    const { derived, dropped } = read(goodAnswer);
    expect(dropped).toEqual([]);
    const porto = deriveEntityId(MEMORY_ID, 'Porto');
    const clinic = deriveEntityId(MEMORY_ID, 'Riverside Clinic');
    const biscuit = deriveEntityId(MEMORY_ID, 'Biscuit');
    const livesIn = deriveFactId(MEMORY_ID, 'ent_maya', 'lives_in', porto);
    expect(derived).toEqual([
      {
        command: { op: 'UPSERT_ENTITY', entityId: porto, name: 'Porto', types: ['place'] },
        confidence: 0.95,
        turns: ['t1'],
        why: 'city Maya moved to',
      },
      {
        command: { op: 'UPSERT_ENTITY', entityId: clinic, name: 'Riverside Clinic', types: ['organisation'] },
        confidence: 0.9,
        turns: ['t3'],
        why: 'new job',
      },
      { command: { op: 'UPSERT_ENTITY', entityId: biscuit, name: 'Biscuit', types: ['pet', 'dog'] }, confidence: 0.6, turns: ['t3'], why: 'her dog' },
      { command: { op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one' }, confidence: 0.9, turns: ['t1'], why: 'one home at a time' },
      // works_at is canonical and `one`: declared as the rules extractor declares it, though the answer did not.
      { command: { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one' }, confidence: 1, turns: ['t3'] },
      {
        command: {
          op: 'UPSERT_EDGE',
          factId: livesIn,
          src: 'ent_maya',
          rel: 'lives_in',
          dst: porto,
          validFrom: '2024-05-04T00:00:00.000Z',
          validTo: null,
          confidence: 0.9,
          evidence: ['t1'],
        },
        confidence: 0.9,
        turns: ['t1'],
        why: 'says she moved to Porto',
      },
      {
        // "Maya" is the known entity's name; the offset instant comes out canonical.
        command: {
          op: 'UPSERT_EDGE',
          src: 'ent_maya',
          rel: 'works_at',
          dst: clinic,
          validFrom: '2024-05-07T00:00:00.000Z',
          validTo: null,
          confidence: 0.85,
          evidence: ['t3'],
        },
        confidence: 0.85,
        turns: ['t3'],
        why: 'started a new job yesterday',
      },
      {
        // No surer than the entity it names: the gate never keeps a fact whose new entity it drops.
        command: {
          op: 'UPSERT_EDGE',
          src: 'ent_maya',
          rel: 'has_pet',
          dst: biscuit,
          validFrom: '2024-05-08T15:02:00.000Z',
          validTo: null,
          confidence: 0.6,
          evidence: ['t3'],
        },
        confidence: 0.6,
        turns: ['t3'],
        why: 'my dog Biscuit',
      },
      {
        // "May" is the known entity's alias; the event includes the fact of item 3, by the id that fact now names.
        command: {
          op: 'UPSERT_EVENT',
          summary: 'Maya moved to Porto',
          participants: [{ entityId: 'ent_maya', role: 'mover' }],
          includesFacts: [livesIn],
          timeSpan: { from: '2024-05-04T00:00:00.000Z', to: '2024-05-05T00:00:00.000Z' },
        },
        confidence: 0.9,
        turns: ['t1'],
        why: 'move last Saturday',
      },
    ]);
    for (const d of derived) expect(wireCommand.safeParse(d.command).success).toBe(true);
  });

  it('drops each invalid item with its reason and keeps the valid ones', () => {
    const { derived, dropped } = read(mixedAnswer);
    expect(derived.map((d) => d.command)).toEqual([
      {
        op: 'UPSERT_EDGE',
        src: 'ent_maya',
        rel: 'left',
        dst: { literal: 'bakery', datatype: 'string' },
        validFrom: '2024-05-08T15:00:00.000Z',
        validTo: null,
        confidence: 0.8,
        evidence: ['t1'],
      },
    ]);
    expect(dropped.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(dropped[0]!.reason).toBe(
      'op "ARCHIVE_EDGE" is not derivable (one of UPSERT_ENTITY, MERGE_ENTITY, DEFINE_RELATION, UPSERT_EDGE, UPSERT_EVENT)',
    );
    expect(dropped[1]!.reason).toBe('turns.0: "w0" is not one of the turns given');
    expect(dropped[2]!.reason).toMatch(/^confidence: /);
  });

  it.each([
    ['an erasure', item({ op: 'ERASE', subject: { entityId: 'ent_maya' }, reason: 'no' }), /^op "ERASE" is not derivable/],
    ['an unknown field', item({ op: 'DEFINE_RELATION', rel: 'likes', cardinality: 'many', retention: 'P1D' }), /^DEFINE_RELATION: .*retention/],
    ['a turn never given', item({ op: 'DEFINE_RELATION', rel: 'likes', cardinality: 'many' }, ['t9']), /"t9" is not one of the turns given/],
    ['no turn', item({ op: 'DEFINE_RELATION', rel: 'likes', cardinality: 'many' }, []), /^turns: /],
    ['a negative confidence', item({ op: 'DEFINE_RELATION', rel: 'likes', cardinality: 'many' }, ['t1'], -0.1), /^confidence: /],
    ['an item that is not an object', 'UPSERT_ENTITY Porto', /expected object/],
    [
      'an unresolvable entity',
      item({ op: 'UPSERT_EDGE', src: 'Nobody', rel: 'likes', dst: 'ent_jonas', validFrom: '2024-05-08T15:00:00Z', validTo: null }),
      /^UPSERT_EDGE: "Nobody" is neither a known entity id nor an entity upserted in the answer$/,
    ],
    [
      'an unresolved relative date',
      item({ op: 'UPSERT_EDGE', src: 'ent_maya', rel: 'likes', dst: 'ent_jonas', validFrom: 'yesterday', validTo: null }),
      /^UPSERT_EDGE: validFrom: must be an ISO-8601 date-time/,
    ],
    [
      'an event resting on no statement',
      item({ op: 'UPSERT_EVENT', summary: 'x', participants: [], timeSpan: { from: '2024-05-08T00:00:00Z', to: null }, factItems: [] }),
      /^UPSERT_EVENT: factItems names no statement it rests on$/,
    ],
    [
      'a statement whose literal repeats the turn’s words',
      item({
        op: 'UPSERT_EDGE',
        src: 'ent_maya',
        rel: 'said',
        dst: { literal: 'I left it! And I moved to Porto' },
        validFrom: '2024-05-08T15:00:00Z',
        validTo: null,
      }),
      /^UPSERT_EDGE: its literal repeats the turn's words$/,
    ],
    [
      'another cardinality for a canonical relation',
      item({ op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'many' }),
      /^DEFINE_RELATION: works_at is canonical, "one"$/,
    ],
    [
      'a merge of an entity with itself',
      item({ op: 'MERGE_ENTITY', srcId: 'May', dstId: 'ent_maya' }),
      /^MERGE_ENTITY: dstId: must differ from srcId$/,
    ],
    [
      'an event including an item that is not a fact',
      item({ op: 'UPSERT_EVENT', summary: 'x', participants: [], timeSpan: { from: '2024-05-08T00:00:00Z', to: null }, factItems: [0] }),
      /^UPSERT_EVENT: factItems names item 0, which is not a kept UPSERT_EDGE$/,
    ],
  ])('drops %s', (_what, bad, reason) => {
    const { derived, dropped } = read({ items: [bad] });
    expect(derived).toEqual([]);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.reason).toMatch(reason);
  });

  it('drops what names an entity whose item was dropped', () => {
    const { derived, dropped } = read({
      items: [
        item({ op: 'UPSERT_ENTITY', name: ' ', aliases: [], types: [] }),
        item({ op: 'UPSERT_EDGE', src: 'ent_maya', rel: 'likes', dst: ' ', validFrom: '2024-05-08T15:00:00Z', validTo: null }),
      ],
    });
    expect(derived).toEqual([]);
    expect(dropped.map((d) => d.index)).toEqual([0, 1]);
  });

  it('dates a fact without validFrom from the earliest turn it cites, and clamps an event to its facts', () => {
    const { derived } = read({
      items: [
        item({ op: 'UPSERT_EDGE', src: 'ent_maya', rel: 'friend_of', dst: 'Jonas' }, ['t3', 't2'], 0.7),
        item({ op: 'UPSERT_EVENT', summary: 'chat', timeSpan: { from: '2024-05-08T15:00:00Z' }, factItems: [0, 0] }, ['t2'], 1),
      ],
    });
    expect(derived[0]!.command).toMatchObject({ validFrom: '2024-05-08T15:01:00.000Z', dst: 'ent_jonas', evidence: ['t2', 't3'] });
    expect(derived[0]!.turns).toEqual(['t2', 't3']);
    expect(derived[1]!.confidence).toBe(0.7);
    expect(derived[1]!.command).toMatchObject({ includesFacts: [deriveFactId(MEMORY_ID, 'ent_maya', 'friend_of', 'ent_jonas')] });
  });

  it('refuses a name two entities of the answer share', () => {
    const { dropped } = read({
      items: [
        item({ op: 'UPSERT_ENTITY', name: 'Sam Reed', aliases: ['Sam'], types: [] }),
        item({ op: 'UPSERT_ENTITY', name: 'Sam Ortiz', aliases: ['Sam'], types: [] }),
        item({ op: 'UPSERT_EDGE', src: 'Sam', rel: 'likes', dst: 'ent_maya', validFrom: '2024-05-08T15:00:00Z', validTo: null }),
      ],
    });
    expect(dropped).toEqual([{ index: 2, reason: 'UPSERT_EDGE: "Sam" names more than one entity of the answer' }]);
  });

  it.each([
    ['not JSON', 'Sure! Here are the items: []', /^the model's answer is not JSON/],
    ['a list', '[]', /^the model's answer is not \{"items": \[\.\.\.\]\}/],
    ['an object without items', '{"facts": []}', /^the model's answer is not \{"items": \[\.\.\.\]\}.*items/],
  ])('fails the extraction on an answer that is %s', (_what, content, message) => {
    expect(() => readAnswer(content, dialog)).toThrow(ExtractionFailedError);
    expect(() => readAnswer(content, dialog)).toThrow(message);
    // What a failed job keeps quotes none of the answer.
    const summary = (() => {
      try {
        readAnswer(content, dialog);
      } catch (error) {
        return (error as ExtractionFailedError).summary;
      }
    })();
    expect(summary).toMatch(/^the model's answer is not (JSON|\{"items": \[\.\.\.\]\} as the response format asks)$/);
  });

  it('summarises a failure without what it quotes: an ExtractionFailedError by its summary, another error by its class and code', () => {
    expect(failureSummary(new ExtractionFailedError('the model refused: Maya lives in Porto', 200, { summary: 'the model refused' }))).toBe(
      'the model refused',
    );
    expect(failureSummary(new ExtractionFailedError('timed out after 5 ms'))).toBe('timed out after 5 ms');
    expect(failureSummary(new TypeError('cannot read "Maya lives in Porto"'))).toBe('TypeError');
    expect(failureSummary(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe('Error ECONNREFUSED');
    expect(failureSummary(Object.assign(new Error('x'), { code: 'Maya lives in Porto' }))).toBe('Error');
    expect(failureSummary('Maya lives in Porto')).toBe('string');
  });
});

describe('version and configuration', () => {
  it('puts the model in the version as build metadata', () => {
    expect(llmExtractorVersion('gpt-4o-mini')).toBe('2.0.0+gpt-4o-mini');
    expect(llmExtractorVersion('qwen2.5-7b-instruct')).toBe('2.0.0+qwen2.5-7b-instruct');
  });

  it('writes other model names readably with a digest, so two names never share a version', () => {
    const slash = llmExtractorVersion('meta-llama/Llama-3.1-8B-Instruct');
    expect(slash).toMatch(/^2\.0\.0\+meta-llama-Llama-3-1-8B-Instruct-[0-9a-f]{8}$/);
    expect(llmExtractorVersion('meta-llama:Llama-3.1-8B-Instruct')).not.toBe(slash);
    expect(llmExtractorVersion('qwen2.5:7b')).toMatch(/^2\.0\.0\+qwen2-5-7b-[0-9a-f]{8}$/);
  });

  it('keeps the actor a valid id, however long the model name', () => {
    for (const model of ['gpt-4o-mini', 'x'.repeat(300), `${'y'.repeat(108)}`, `${'z'.repeat(109)}`, '日本語モデル']) {
      const actor = `extractor:llm@${llmExtractorVersion(model)}`;
      expect(id.safeParse(actor).success).toBe(true);
      expect(actor).toMatch(/^extractor:llm@2\.0\.0\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/);
    }
  });

  it('comes from the environment only when EXTRACTION_URL is set', () => {
    expect(llmExtractorFromEnv({})).toBeUndefined();
    expect(llmExtractorFromEnv({ EXTRACTION_URL: '  ', EXTRACTION_MODEL: 'm' })).toBeUndefined();
    expect(() => llmExtractorFromEnv({ EXTRACTION_URL: 'http://127.0.0.1:9/v1' })).toThrow(/EXTRACTION_MODEL/);
    expect(() => llmExtractorFromEnv({ EXTRACTION_URL: 'not a url', EXTRACTION_MODEL: 'm' })).toThrow(/not a URL/);
    const extractor = llmExtractorFromEnv({ EXTRACTION_URL: 'http://127.0.0.1:9/v1', EXTRACTION_MODEL: 'small-model', EXTRACTION_API_KEY: 'k' });
    expect(extractor).toMatchObject({ name: 'llm', version: '2.0.0+small-model', model: 'small-model' });
    expect(extractor!.usage()).toEqual({ calls: 0, failedCalls: 0, turns: 0, promptTokens: 0, completionTokens: 0, items: 0, droppedItems: 0 });
  });
});
