import { writeFileSync } from 'node:fs';
import { wireCommand } from '@memotrace/contracts';
import { relationPhrase } from '@memotrace/domain';
import type { Derived, KnownEntity, KnownRelation, Turn } from '../../libs/extraction/src/port';
import { createRulesExtractor } from '../../libs/extraction/src/rules/extractor';
import { DEV, HELD_OUT, loadLocomo, loadObservations } from './locomo-data';
import { loadScorer, type ScoredStatement, scoreStatements } from './statement-score';

/**
 * `npx tsx infra/bench/statement-quality.ts [dev|held-out]`: the rules extractor alone against
 * LoCoMo's gold observations, at the level of content (./statement-score.ts): statement recall and
 * precision, copies, statements per turn and turns/s of extraction. Each session goes through the
 * extractor as one batch, as `/turns` sends it (the earlier turns of the session as the window, the
 * entities and relations derived so far as known); only items at or above the gate (GATE, default
 * 0.5) count, as only those are appended. DUMP=<file> writes every statement with its verdict,
 * MISSED=<file> every observation no statement says, with its turns and their statements.
 * Tune on dev; held-out is measured once. LoCoMo is read in place, never copied.
 */
const GATE = Number(process.env['GATE'] ?? 0.5);

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'dev';
  if (which !== 'dev' && which !== 'held-out') throw new Error('usage: statement-quality.ts [dev|held-out]');
  const split = which === 'dev' ? DEV : HELD_OUT;
  const conversations = loadLocomo().filter((c) => split.includes(c.sampleId));
  const observations = loadObservations();
  const scorer = await loadScorer();
  const extractor = createRulesExtractor();
  const totals = { observations: 0, recalled: 0, statements: 0, precise: 0, copies: 0, turns: 0, commands: 0, invalid: 0 };
  const byOp = new Map<string, number>();
  const byRel = new Map<string, [number, number]>();
  const dump: string[] = [];
  const missed: string[] = [];
  let elapsed = 0;
  for (const c of conversations) {
    const entities = new Map<string, KnownEntity>();
    const relations = new Map<string, KnownRelation>();
    const statements: ScoredStatement[] = [];
    const turnText = new Map<string, string>();
    const rels = new Map<string, string>();
    for (const session of c.sessions) {
      const turns: Turn[] = session.turns.map((t) => ({
        mentionId: t.dia_id,
        sessionId: `s${session.number}`,
        speaker: t.speaker,
        text: t.text,
        at: session.at,
      }));
      for (const t of turns) turnText.set(t.mentionId, t.text);
      const started = performance.now();
      const derived: Derived[] = await extractor.extract({
        memoryId: c.sampleId,
        turns,
        window: [],
        entities: [...entities.values()],
        relations: [...relations.values()],
      });
      elapsed += performance.now() - started;
      totals.turns += turns.length;
      for (const d of derived) {
        if (d.confidence < GATE) continue;
        totals.commands++;
        byOp.set(d.command.op, (byOp.get(d.command.op) ?? 0) + 1);
        if (!wireCommand.safeParse(d.command).success) totals.invalid++;
        const command = d.command;
        if (command.op === 'UPSERT_ENTITY') {
          const id = command.entityId ?? command.name;
          const known = entities.get(id);
          if (known === undefined) entities.set(id, { entityId: id, name: command.name, aliases: command.aliases ?? [], types: command.types ?? [] });
          else known.aliases.push(...(command.aliases ?? []));
        } else if (command.op === 'DEFINE_RELATION') {
          relations.set(command.rel, { rel: command.rel, cardinality: command.cardinality });
        } else if (command.op === 'UPSERT_EDGE') {
          if (!relations.has(command.rel)) relations.set(command.rel, { rel: command.rel, cardinality: 'many' });
          const name = (id: string) => entities.get(id)?.name ?? id;
          const dst = typeof command.dst === 'string' ? name(command.dst) : String(command.dst.literal);
          const text = `${name(command.src)} ${relationPhrase(command.rel)} ${dst}`;
          statements.push({ text, turns: d.turns, ...(typeof command.dst === 'string' ? {} : { content: dst }) });
          rels.set(`${text}\u0000${d.turns.join(',')}`, command.rel);
        } else if (command.op === 'UPSERT_EVENT') {
          statements.push({ text: command.summary, turns: d.turns, content: command.summary.replace(/^[^:]{1,64}:\s*/u, '') });
          rels.set(`${command.summary}\u0000${d.turns.join(',')}`, 'event');
        }
      }
    }
    const score = scoreStatements(scorer, statements, observations.get(c.sampleId) ?? [], turnText);
    for (const key of ['observations', 'recalled', 'statements', 'precise', 'copies'] as const) totals[key] += score[key];
    for (const o of score.missed) {
      missed.push(`OBS ${o.evidence.join(',')} ${o.text}`);
      for (const id of o.evidence) missed.push(`   TURN ${turnText.get(id)}`);
      for (const j of score.judged) if (j.turns.some((t) => o.evidence.includes(t))) missed.push(`   STATEMENT ${j.text}`);
    }
    for (const j of score.judged) {
      const rel = rels.get(`${j.text}\u0000${j.turns.join(',')}`) ?? '?';
      const kind = [
        'event',
        'likes',
        'seeks',
        'works_as',
        'works_at',
        'lives_in',
        'has_child',
        'plans_to',
        'wants_to',
        'does_activity',
        'attended_event',
        'visited',
      ].includes(rel)
        ? rel
        : rel.startsWith('is_')
          ? 'is_*'
          : rel.startsWith('has_been')
            ? 'has_been_*'
            : 'other';
      const [n, m] = byRel.get(kind) ?? [0, 0];
      byRel.set(kind, [n + 1, m + (j.matched ? 1 : 0)]);
      dump.push(`${j.matched ? '+' : j.copy ? 'C' : '-'} ${j.turns.join(',')} ${j.text}\t|| ${j.turns.map((t) => turnText.get(t)).join(' / ')}`);
    }
  }
  const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`);
  console.log(`LoCoMo ${which}: ${totals.turns} turns, ${totals.observations} gold observations, gate ${GATE}`);
  console.log(
    `statement recall ${pct(totals.recalled, totals.observations)}, precision ${pct(totals.precise, totals.statements)} ` +
      `(${totals.statements} statements, ${(totals.statements / totals.turns).toFixed(2)} a turn), copies ${totals.copies}`,
  );
  console.log(`commands appended ${totals.commands} (${[...byOp].map(([op, n]) => `${op} ${n}`).join(', ')}), invalid ${totals.invalid}`);
  console.log(
    `by relation: ${[...byRel]
      .sort((a, b) => b[1][0] - a[1][0])
      .map(([k, [n, m]]) => `${k} ${m}/${n}`)
      .join(', ')}`,
  );
  console.log(`extraction ${((1000 * totals.turns) / elapsed).toFixed(0)} turns/s (${(elapsed / 1000).toFixed(1)} s)`);
  if (process.env['DUMP'] !== undefined) writeFileSync(process.env['DUMP'], dump.join('\n') + '\n');
  if (process.env['MISSED'] !== undefined) writeFileSync(process.env['MISSED'], missed.join('\n') + '\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
