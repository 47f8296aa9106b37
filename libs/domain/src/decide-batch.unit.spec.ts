import { decideBatch } from './decide-batch';
import { DomainError } from './errors';
import { fold } from './evolve';
import { factsAt } from './cut';
import { initialState } from './state';
import type { Command } from './commands';
import { MEMORY, at, bare, edge, entity, given, mention, relation } from './testing/given';

describe('decideBatch', () => {
  describe('idempotency (commandId)', () => {
    it('a resent commandId is a duplicate: the original result, no events', () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('MON') }), entity('acme', 'Acme', { recordedAt: at('MON') })]);
      const first = s.when(edge('alice', 'works_at', 'acme', { commandId: 'k1', factId: 'f1', recordedAt: at('TUE') }));
      const resent = s.when(edge('alice', 'works_at', 'acme', { commandId: 'k1', factId: 'f1', recordedAt: at('WED') }));
      expect(resent.records).toEqual([]);
      expect(resent.results).toEqual([{ commandId: 'k1', status: 'duplicate', recordedAt: at('TUE'), ids: { factId: 'f1' } }]);
      expect(first.results[0]).toEqual({ ...resent.results[0], status: 'applied' });
    });

    it('a duplicate writes nothing even when the resent body differs, and is not checked for record-time regression', () => {
      const s = given([entity('alice', 'Alice', { commandId: 'k1', recordedAt: at('MON') }), mention('d', 'x', { recordedAt: at('WED') })]);
      const { records, results } = s.when(entity('bob', 'Bob', { commandId: 'k1', recordedAt: at('MON') }));
      expect(records).toEqual([]);
      expect(results).toEqual([{ commandId: 'k1', status: 'duplicate', recordedAt: at('MON'), ids: { entityId: 'alice' } }]);
      expect(s.state.entities.has('bob')).toBe(false);
    });

    it('a commandId repeated within one batch is a duplicate of its first occurrence', () => {
      const s = given();
      const { records, results } = s.when([
        entity('alice', 'Alice', { commandId: 'k1', recordedAt: at('MON') }),
        entity('bob', 'Bob', { commandId: 'k2', recordedAt: at('MON') }),
        entity('carol', 'Carol', { commandId: 'k1', recordedAt: at('TUE') }),
      ]);
      expect(records.map((e) => e.meta.commandId)).toEqual(['k1', 'k2']);
      expect(results.map((r) => [r.commandId, r.status, r.recordedAt, r.ids])).toEqual([
        ['k1', 'applied', at('MON'), { entityId: 'alice' }],
        ['k2', 'applied', at('MON'), { entityId: 'bob' }],
        ['k1', 'duplicate', at('MON'), { entityId: 'alice' }],
      ]);
    });

    it('the original result survives a replay of the log (outcomes are rebuilt from events), including superseded ids', () => {
      const s = given([
        entity('alice', 'Alice', { recordedAt: at('MON') }),
        entity('acme', 'Acme', { recordedAt: at('MON') }),
        entity('beta', 'Beta', { recordedAt: at('MON') }),
        relation('works_at', 'one', at('MON')),
        edge('alice', 'works_at', 'acme', { factId: 'f-acme', validFrom: at('MON'), recordedAt: at('MON') }),
      ]);
      const original = s.when(
        edge('alice', 'works_at', 'beta', { commandId: 'k-beta', factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU') }),
      );
      expect(original.results[0]!.ids).toEqual({ factId: 'f-beta', supersededFactIds: ['f-acme'] });

      const replayed = fold(s.log);
      const { records, results } = decideBatch(MEMORY, replayed, [{ op: 'ARCHIVE_EDGE', factId: 'f-beta', commandId: 'k-beta' }], at('SUN'));
      expect(records).toEqual([]);
      expect(results).toEqual([
        { commandId: 'k-beta', status: 'duplicate', recordedAt: at('THU'), ids: { factId: 'f-beta', supersededFactIds: ['f-acme'] } },
      ]);
    });

    it('a duplicate in a batch with a failing command is rejected with the batch', () => {
      const s = given([entity('alice', 'Alice', { commandId: 'k1' })]);
      const error = s.rejects([entity('alice', 'Alice', { commandId: 'k1' }), { op: 'ARCHIVE_EDGE', factId: 'nope' }]);
      expect(error).toMatchObject({ code: 'UNKNOWN_FACT' });
      expect(error.details).toMatchObject({ commandIndex: 1 });
    });
  });

  describe('record time', () => {
    it('uses the client recordedAt when given', () => {
      const s = given();
      expect(s.when(entity('alice', 'Alice', { recordedAt: at('TUE') }), at('SUN')).results[0]!.recordedAt).toBe(at('TUE'));
    });

    it('uses the server clock when none is given', () => {
      const s = given();
      const { records, results } = s.when(entity('alice', 'Alice'), at('TUE', '10:00'));
      expect(results[0]!.recordedAt).toBe(at('TUE', '10:00'));
      expect(records[0]!.meta.recordedAt).toBe(at('TUE', '10:00'));
    });

    it('uses max(now, latest) when the server clock is behind the latest accepted recordedAt', () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('FRI') })]);
      const { results } = s.when(entity('bob', 'Bob'), at('TUE'));
      expect(results[0]!.recordedAt).toBe(at('FRI'));
    });

    it('accepts a recordedAt equal to the latest', () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('TUE') })]);
      expect(s.when(entity('bob', 'Bob', { recordedAt: at('TUE') })).results[0]!.recordedAt).toBe(at('TUE'));
    });

    it('rejects a recordedAt earlier than the latest (even by one ms) with 409 RECORD_TIME_REGRESSION naming the command index', () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('TUE') })]);
      const error = s.rejects([
        entity('bob', 'Bob', { recordedAt: at('TUE') }),
        entity('carol', 'Carol', { recordedAt: at('WED') }),
        entity('dave', 'Dave', { recordedAt: at('TUE', '23:59') }),
      ]);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 'RECORD_TIME_REGRESSION' });
      expect(error.message).toMatch(/^commands\[2\]: /);
      // the location is structured data too: an edge locating the error otherwise never parses the message
      expect([error.commandIndex, error.field, error.message]).toEqual([2, 'recordedAt', `commands[2]: ${error.problem}`]);
      expect(error.problem).toMatch(/^recordedAt /);
      expect(error.details).toEqual({ field: 'recordedAt', recordedAt: at('TUE', '23:59'), latestRecordedAt: at('WED'), commandIndex: 2 });
      // nothing of the batch is written
      expect(s.log).toHaveLength(1);
      expect(fold(s.log).entities.has('bob')).toBe(false);
      expect(fold(s.log).latestRecordedAt).toBe(at('TUE'));
    });

    it('the latest accepted recordedAt from an earlier batch counts', () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('WED') })]);
      expect(s.rejects(entity('bob', 'Bob', { recordedAt: '2024-05-07T23:59:59.999Z' }))).toMatchObject({
        code: 'RECORD_TIME_REGRESSION',
        details: { commandIndex: 0 },
      });
    });
  });

  describe('atomicity', () => {
    const base = () => given([entity('alice', 'Alice', { recordedAt: at('MON') }), entity('acme', 'Acme', { recordedAt: at('MON') })]);

    it.each([0, 1, 2])('a failing command at index %i rejects the whole batch', (index) => {
      const s = base();
      const good = [
        entity('bob', 'Bob', { recordedAt: at('TUE') }),
        edge('alice', 'works_at', 'acme', { factId: 'f1', recordedAt: at('TUE') }),
        mention('d', 'hi', { mentionId: 'm1', recordedAt: at('TUE') }),
      ];
      const batch = good.map((c, i) => (i === index ? edge('ghost', 'works_at', 'acme', { recordedAt: at('TUE') }) : c));
      const error = s.rejects(batch);
      expect(error).toMatchObject({ code: 'UNKNOWN_ENTITY', details: { commandIndex: index } });
      expect(error.message).toMatch(new RegExp(`^commands\\[${index}\\]: `));
      expect(s.log).toHaveLength(2);
      const state = fold(s.log);
      expect([state.entities.size, state.facts.size, state.mentions.size]).toEqual([2, 0, 0]);
    });

    it('later commands of a batch see the earlier ones', () => {
      const s = given();
      const { results } = s.when([
        entity('alice', 'Alice', { recordedAt: at('MON') }),
        entity('acme', 'Acme', { recordedAt: at('MON') }),
        edge('alice', 'works_at', 'acme', { factId: 'f1', validFrom: at('MON'), recordedAt: at('TUE') }),
        { op: 'ARCHIVE_EDGE', factId: 'f1', recordedAt: at('WED') },
      ]);
      expect(results.map((r) => r.status)).toEqual(['applied', 'applied', 'applied', 'applied']);
      expect(factsAt(fold(s.log, at('TUE')), at('TUE')).map((f) => f.factId)).toEqual(['f1']);
      expect(factsAt(fold(s.log), at('TUE'))).toEqual([]);
    });

    it('stamps every event with its command meta', () => {
      const state = initialState();
      const { records } = decideBatch(
        MEMORY,
        state,
        [
          { op: 'UPSERT_ENTITY', entityId: 'a', name: 'A', commandId: 'c1', actor: 'agent', reason: 'why' },
          { op: 'UPSERT_ENTITY', entityId: 'b', name: 'B', commandId: 'c2' },
        ],
        at('MON'),
      );
      expect(records.map((e) => e.meta)).toEqual([
        { commandId: 'c1', recordedAt: at('MON'), actor: 'agent', reason: 'why' },
        { commandId: 'c2', recordedAt: at('MON'), actor: null, reason: null },
      ]);
      expect(state.eventCount).toBe(2);
      expect(state.latestRecordedAt).toBe(at('MON'));
    });
  });

  /**
   * SPEC §3.1: an `unchanged` command writes no version. The log keeps one CommandUnchanged
   * record of it, so, within its batch and across batches and restarts, its commandId is a
   * duplicate when resent and its recordedAt is the memory's latest.
   */
  describe('unchanged commands write no version, and the log remembers them', () => {
    it('records the command as it resolved (default ids filled in), op first and the other keys sorted', () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('MON') })]);
      const { records } = s.when({
        op: 'UPSERT_ENTITY',
        name: 'Alice',
        types: [],
        entityId: 'alice',
        commandId: 'k-same',
        recordedAt: at('TUE'),
        actor: 'agent-1',
      });
      expect(bare(records)).toEqual([
        {
          type: 'CommandUnchanged',
          data: { command: { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', types: [] }, ids: { entityId: 'alice' } },
        },
      ]);
      expect(Object.keys((bare(records)[0]!.data as { command: object }).command)).toEqual(['op', 'entityId', 'name', 'types']);
      expect(records[0]!.meta).toEqual({ commandId: 'k-same', recordedAt: at('TUE'), actor: 'agent-1', reason: null });
    });

    it('resending the commandId of an unchanged command is a duplicate with the original result, and writes nothing', () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('MON') })]);
      const original = s.when(entity('alice', 'Alice', { commandId: 'k-same', recordedAt: at('TUE') }));
      expect(original.results[0]).toEqual({ commandId: 'k-same', status: 'unchanged', recordedAt: at('TUE'), ids: { entityId: 'alice' } });
      const resent = s.when(entity('alice', 'Alice', { commandId: 'k-same', recordedAt: at('WED') }));
      expect(resent.records).toEqual([]);
      expect(resent.results[0]).toEqual({ commandId: 'k-same', status: 'duplicate', recordedAt: at('TUE'), ids: { entityId: 'alice' } });
      // and after a restart (the state folded from the log)
      expect(decideBatch(MEMORY, fold(s.log), [entity('alice', 'Alice', { commandId: 'k-same' }) as Command], at('SUN')).results[0]).toMatchObject({
        status: 'duplicate',
        recordedAt: at('TUE'),
      });
    });

    it('a commandId first used by an unchanged command in a batch is a duplicate when repeated in it', () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('MON') })]);
      const { records, results } = s.when([
        entity('alice', 'Alice', { commandId: 'k-same', recordedAt: at('TUE') }),
        entity('bob', 'Bob', { commandId: 'k-same', recordedAt: at('TUE') }),
      ]);
      expect(records.map((e) => e.type)).toEqual(['CommandUnchanged']);
      expect(results.map((r) => r.status)).toEqual(['unchanged', 'duplicate']);
    });

    it("an unchanged command's recordedAt is the memory's latest: an earlier one is then RECORD_TIME_REGRESSION", () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('MON') })]);
      s.when(entity('alice', 'Alice', { recordedAt: at('FRI') }));
      expect(s.rejects(entity('bob', 'Bob', { recordedAt: at('WED') }))).toMatchObject({ code: 'RECORD_TIME_REGRESSION' });
      expect(fold(s.log).latestRecordedAt).toBe(at('FRI'));
    });

    it('within a batch, a recordedAt earlier than an unchanged command is RECORD_TIME_REGRESSION', () => {
      const s = given([entity('alice', 'Alice', { recordedAt: at('MON') })]);
      expect(s.rejects([entity('alice', 'Alice', { recordedAt: at('FRI') }), entity('bob', 'Bob', { recordedAt: at('WED') })])).toMatchObject({
        code: 'RECORD_TIME_REGRESSION',
      });
      expect(s.when(entity('bob', 'Bob', { recordedAt: at('WED') })).results[0]).toMatchObject({ status: 'applied', recordedAt: at('WED') });
    });
  });
});
