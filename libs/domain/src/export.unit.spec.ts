import type { Command } from './commands';
import { changesBetween, entityAt, episodesAt, eventsAt, factHistory, factsAt, mentionsAt } from './cut';
import { decideBatch } from './decide-batch';
import type { MemoryRecord } from './records';
import { fold } from './evolve';
import { commandsOfLog } from './export';
import { deriveEntityId } from './ids';
import { type MemoryState, initialState } from './state';
import { MEMORY, archive, at, edge, entity, given, merge, mention, relation, retro } from './testing/given';
import type { ValidAt } from './views';

/** A history touching every op, with merges, supersession, unchanged, duplicate and rejected commands. */
function richHistory() {
  const s = given([
    {
      op: 'UPSERT_ENTITY',
      name: 'Alice Smith',
      aliases: ['Ally'],
      types: ['person'],
      recordedAt: at('MON', '09:00'),
      actor: 'agent-1',
      reason: 'intro',
    },
    entity('acme', 'Acme', { types: ['org'], recordedAt: at('MON', '09:00') }),
    entity('beta', 'Beta', { recordedAt: at('MON', '09:00') }),
    entity('al', 'Al', { recordedAt: at('MON', '09:00') }),
    relation('works_at', 'one', at('MON', '09:00')),
    relation('likes', 'many', at('MON', '09:00')),
  ]);
  const alice = deriveEntityId(MEMORY, 'alice smith');
  s.when([
    mention('dialog-1', 'I started at Acme on Monday', { speaker: 'user', occurredAt: at('MON', '08:00'), recordedAt: at('MON', '10:00') }),
    mention('dialog-1', 'cool', { mentionId: 'm-cool', recordedAt: at('MON', '10:00') }),
    edge(alice, 'works_at', 'acme', {
      validFrom: at('MON'),
      confidence: 0.9,
      evidence: ['m-cool'],
      source: 'dialog',
      recordedAt: at('MON', '10:00'),
    }),
    edge('al', 'likes', 'beta', { factId: 'f-likes', validFrom: at('MON'), recordedAt: at('MON', '10:00') }),
    edge(
      alice,
      'age',
      { literal: 30, datatype: 'number' },
      { factId: 'f-age', validFrom: at('MON'), validTo: at('SUN'), recordedAt: at('MON', '10:00') },
    ),
    edge(alice, 'nick', { literal: true, datatype: 'boolean' }, { factId: 'f-bool', recordedAt: at('MON', '10:00') }),
  ]);
  const acmeFact = [...s.state.facts.keys()].find((id) => id.startsWith('fact_'))!;
  s.when([
    {
      op: 'UPSERT_EVENT',
      eventId: 'ev-join',
      summary: 'Alice joined Acme',
      participants: [{ entityId: alice, role: 'employee' }],
      includesFacts: [acmeFact],
      timeSpan: { from: at('MON') },
      recordedAt: at('TUE', '09:00'),
    },
    {
      op: 'UPSERT_EVENT',
      summary: 'Al likes Beta',
      includesFacts: ['f-likes'],
      timeSpan: { from: at('MON'), to: at('WED') },
      recordedAt: at('TUE', '09:00'),
    },
  ]);
  const likesEvent = [...s.state.events.keys()].find((id) => id.startsWith('evt_'))!;
  s.when([
    { op: 'LINK', kind: 'temporal', from: 'ev-join', to: likesEvent, qualifier: 'before', recordedAt: at('TUE', '10:00') },
    { op: 'LINK', kind: 'related_to', from: likesEvent, to: 'ev-join', recordedAt: at('TUE', '10:00') },
    {
      op: 'UPSERT_EPISODE',
      title: 'Week 19',
      window: { from: at('MON'), to: at('SUN') },
      events: ['ev-join', likesEvent],
      recordedAt: at('TUE', '10:00'),
    },
    // unchanged: exported (an accepted command), replayed as unchanged
    entity('acme', 'Acme', { types: ['org'], recordedAt: at('TUE', '10:00') }),
  ]);
  s.when([merge('al', alice, at('WED', '09:00')), entity('al', 'Al', { aliases: ['A.'], types: ['nickname'], recordedAt: at('WED', '09:00') })]);
  // rejected batch: leaves nothing
  s.rejects([edge(alice, 'works_at', 'beta', { validFrom: at('WED'), recordedAt: at('WED', '10:00') }), archive('nope', at('WED', '10:00'))]);
  // the supersession (Acme → Beta from Wednesday), learned on Thursday
  s.when(
    edge('al', 'works_at', 'beta', {
      commandId: 'k-beta',
      validFrom: at('WED'),
      actor: 'agent-2',
      reason: 'user said so',
      recordedAt: at('THU', '09:00'),
    }),
  );
  s.when(edge('al', 'works_at', 'beta', { commandId: 'k-beta', validFrom: at('WED'), recordedAt: at('THU', '09:00') })); // duplicate
  s.when([retro('f-age', { validTo: null, recordedAt: at('THU', '10:00') }), archive('f-likes', at('THU', '10:00'))]);
  s.when(edge('al', 'likes', 'beta', { factId: 'f-likes', confidence: 0.2, recordedAt: at('FRI', '09:00') }));
  s.when(mention('dialog-2', 'bye', { recordedAt: at('FRI', '10:00') }));
  return { s, alice, acmeFact, likesEvent };
}

function replay(memoryId: string, commands: readonly Command[], batchSize: number): { log: MemoryRecord[]; state: MemoryState } {
  const state = initialState();
  const log: MemoryRecord[] = [];
  for (let i = 0; i < commands.length; i += batchSize) {
    const { records, results } = decideBatch(memoryId, state, commands.slice(i, i + batchSize), '2000-01-01T00:00:00.000Z');
    expect(results.filter((r) => r.status === 'duplicate')).toEqual([]);
    log.push(...records);
  }
  return { log, state };
}

const VALID_ATS: ValidAt[] = ['*', at('MON'), at('TUE'), at('WED'), at('THU'), at('SAT'), at('SUN')];

/** Every query answer the domain gives at record time `r`. */
function answersAt(log: readonly MemoryRecord[], r: string) {
  const state = fold(log, r);
  const full = fold(log);
  return {
    facts: VALID_ATS.map((v) => factsAt(state, v)),
    events: VALID_ATS.map((v) => eventsAt(state, v)),
    episodes: VALID_ATS.map((v) => episodesAt(state, v)),
    mentions: mentionsAt(state),
    entities: [...full.entities.keys()].sort().map((id) => entityAt(state, id)),
    histories: [...full.facts.keys()].sort().map((id) => factHistory(state, id)),
    changes: changesBetween(state, '2024-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'),
  };
}

describe('commandsOfLog (export)', () => {
  it('exports one fully resolved command per accepted command, in log order', () => {
    const { s, alice, acmeFact } = richHistory();
    const commands = commandsOfLog(s.log);
    const commandIds = [...new Set(s.log.map((e) => e.meta.commandId))];
    expect(commands.map((c) => c.commandId)).toEqual(commandIds);
    expect(commands[0]).toEqual({
      op: 'UPSERT_ENTITY',
      entityId: alice,
      name: 'Alice Smith',
      aliases: ['Ally'],
      types: ['person'],
      commandId: 'cmd-1',
      recordedAt: at('MON', '09:00'),
      actor: 'agent-1',
      reason: 'intro',
    });
    const upsert = commands.find((c) => c.op === 'UPSERT_EDGE' && c.factId === acmeFact);
    expect(upsert).toEqual({
      op: 'UPSERT_EDGE',
      factId: acmeFact,
      src: alice,
      rel: 'works_at',
      dst: 'acme',
      validFrom: at('MON'),
      validTo: null,
      confidence: 0.9,
      evidence: ['m-cool'],
      source: 'dialog',
      commandId: expect.any(String),
      recordedAt: at('MON', '10:00'),
    });
    // the supersession is derived again on import: exported as the one UPSERT_EDGE only
    const beta = commands.filter((c) => c.commandId === 'k-beta');
    expect(beta).toEqual([
      expect.objectContaining({ op: 'UPSERT_EDGE', src: alice, dst: 'beta', validFrom: at('WED'), actor: 'agent-2', reason: 'user said so' }),
    ]);
    expect(commands.some((c) => c.op === 'RETRO_CORRECT' && c.factId === acmeFact)).toBe(false);
    // every op of the history is there
    expect([...new Set(commands.map((c) => c.op))].sort()).toEqual([
      'ARCHIVE_EDGE',
      'DEFINE_RELATION',
      'LINK',
      'MERGE_ENTITY',
      'RECORD_MENTION',
      'RETRO_CORRECT',
      'UPSERT_EDGE',
      'UPSERT_ENTITY',
      'UPSERT_EPISODE',
      'UPSERT_EVENT',
    ]);
  });

  it.each([
    ['one batch', 10_000],
    ['one command per batch', 1],
    ['batches of 3', 3],
  ])('replayed into a fresh memory with another id (%s), it reproduces the log and every answer at every record time', (_, batchSize) => {
    const { s } = richHistory();
    const commands = commandsOfLog(s.log);
    const imported = replay('another-memory', commands, batchSize);

    expect(imported.log.map(({ type, data, meta }) => ({ type, data, meta }))).toEqual(s.log.map(({ type, data, meta }) => ({ type, data, meta })));
    expect(imported.state).toEqual(fold(s.log));
    const recordTimes = [...new Set(s.log.map((e) => e.meta.recordedAt))];
    expect(recordTimes).toHaveLength(9);
    for (const r of [...recordTimes, '2024-05-05T00:00:00.000Z', at('SUN')]) {
      expect(answersAt(imported.log, r)).toEqual(answersAt(s.log, r));
    }
  });

  it('exporting the imported memory again gives identical JSON', () => {
    const { s } = richHistory();
    const first = commandsOfLog(s.log);
    const again = commandsOfLog(replay('another-memory', first, 1).log);
    expect(again.map((c) => JSON.stringify(c))).toEqual(first.map((c) => JSON.stringify(c)));
    expect(JSON.stringify(commandsOfLog(replay('third', again, 5).log))).toBe(JSON.stringify(first));
  });

  it('idempotency survives the import: the original commandIds are duplicates there', () => {
    const { s } = richHistory();
    const imported = replay('another-memory', commandsOfLog(s.log), 1000);
    const { records, results } = decideBatch(
      'another-memory',
      imported.state,
      [{ op: 'MERGE_ENTITY', srcId: 'acme', dstId: 'beta', commandId: 'k-beta' }],
      at('SUN'),
    );
    expect(records).toEqual([]);
    expect(results[0]).toMatchObject({ status: 'duplicate', recordedAt: at('THU', '09:00'), ids: { supersededFactIds: [expect.any(String)] } });
  });

  it('an empty log exports no commands', () => {
    expect(commandsOfLog([])).toEqual([]);
  });
});
