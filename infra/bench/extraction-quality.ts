import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { wireCommand } from '@memotrace/contracts';
import type { Derived, Turn } from '../../libs/extraction/src/port';
import { createRulesExtractor } from '../../libs/extraction/src/rules/extractor';
import { DEV, HELD_OUT, normaliseEvidence, parseSessionTime } from './locomo-data';

/**
 * `npx tsx infra/bench/extraction-quality.ts [dev|held-out]`: the rules extractor against
 * LoCoMo's gold observations, at turn level. Coverage: share of observations whose evidence
 * turn is cited by a derived fact or event; precision: share of derived facts and events
 * citing a gold evidence turn. Each session goes through the extractor as one batch (the
 * earlier turns of the conversation as the window, the entities derived so far as known),
 * and only items at or above the gate (GATE, default 0.5) count, as only those are appended.
 * A trivial filter (every first-person turn of eight words or more) is measured alongside.
 * LoCoMo is read in place (LOCOMO_FILE or ../shared/data/locomo), never copied.
 */
const LOCOMO_FILE = process.env['LOCOMO_FILE'] ?? resolve(__dirname, '../../../shared/data/locomo/locomo10.json');
const GATE = Number(process.env['GATE'] ?? 0.5);
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|our|us)\b/iu;

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  observation: Record<string, Record<string, [string, string | string[]][]>>;
}

interface Sample {
  id: string;
  sessions: { sessionId: string; turns: Turn[] }[];
  observations: string[][];
  gold: Set<string>;
}

function load(split: readonly string[]): Sample[] {
  const raw = JSON.parse(readFileSync(LOCOMO_FILE, 'utf8')) as RawSample[];
  return raw
    .filter((s) => split.includes(s.sample_id))
    .map((s) => {
      const sessions: Sample['sessions'] = [];
      for (let n = 1; ; n++) {
        const turns = s.conversation[`session_${n}`] as RawTurn[] | undefined;
        const when = s.conversation[`session_${n}_date_time`];
        if (turns === undefined) {
          if (when === undefined) break;
          continue;
        }
        const sessionId = `${s.sample_id}-s${n}`;
        const at = parseSessionTime(String(when));
        sessions.push({ sessionId, turns: turns.map((t) => ({ mentionId: t.dia_id, sessionId, speaker: t.speaker, text: t.text, at })) });
      }
      const ids = new Set(sessions.flatMap((x) => x.turns.map((t) => t.mentionId)));
      const observations = Object.values(s.observation)
        .flatMap((bySpeaker) => Object.values(bySpeaker).flat())
        .map(([, evidence]) => normaliseEvidence(Array.isArray(evidence) ? evidence : [evidence]).filter((id) => ids.has(id)))
        .filter((ev) => ev.length > 0);
      return { id: s.sample_id, sessions, observations, gold: new Set(observations.flat()) };
    });
}

interface Score {
  covered: number;
  observations: number;
  items: number;
  goldItems: number;
  turns: number;
  goldTurns: number;
}

function score(samples: Sample[], cited: Map<string, string[][]>): Score {
  const s: Score = { covered: 0, observations: 0, items: 0, goldItems: 0, turns: 0, goldTurns: 0 };
  for (const sample of samples) {
    const items = cited.get(sample.id) ?? [];
    const citedTurns = new Set(items.flat());
    s.turns += citedTurns.size;
    for (const id of citedTurns) if (sample.gold.has(id)) s.goldTurns++;
    for (const obs of sample.observations) {
      s.observations++;
      if (obs.some((id) => citedTurns.has(id))) s.covered++;
    }
    for (const turns of items) {
      s.items++;
      if (turns.some((id) => sample.gold.has(id))) s.goldItems++;
    }
  }
  return s;
}

function pct(n: number, d: number): string {
  return d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`;
}

function evidenceOf(d: Derived): string[] | null {
  const c = d.command;
  if (c.op === 'UPSERT_EDGE') return c.evidence ?? d.turns;
  if (c.op === 'UPSERT_EVENT') return d.turns;
  return null;
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'dev';
  if (which !== 'dev' && which !== 'held-out') throw new Error('usage: extraction-quality.ts [dev|held-out]');
  const samples = load(which === 'dev' ? DEV : HELD_OUT);
  const extractor = createRulesExtractor();
  const cited = new Map<string, string[][]>();
  const trivial = new Map<string, string[][]>();
  let turns = 0;
  let commands = 0;
  let invalid = 0;
  let elapsed = 0;
  const byOp = new Map<string, number>();
  for (const sample of samples) {
    const window: Turn[] = [];
    const entities = new Map<string, { entityId: string; name: string; aliases: string[]; types: string[] }>();
    const items: string[][] = [];
    for (const session of sample.sessions) {
      const started = performance.now();
      const derived = await extractor.extract({ memoryId: sample.id, turns: session.turns, window: [...window], entities: [...entities.values()] });
      elapsed += performance.now() - started;
      turns += session.turns.length;
      commands += derived.length;
      for (const d of derived) {
        byOp.set(d.command.op, (byOp.get(d.command.op) ?? 0) + 1);
        if (!wireCommand.safeParse(d.command).success) invalid++;
        const c = d.command;
        if (c.op === 'UPSERT_ENTITY' && d.confidence >= GATE) {
          const known = entities.get(c.entityId ?? c.name);
          if (known === undefined)
            entities.set(c.entityId ?? c.name, { entityId: c.entityId ?? c.name, name: c.name, aliases: c.aliases ?? [], types: c.types ?? [] });
          else known.aliases.push(...(c.aliases ?? []));
        }
        const evidence = evidenceOf(d);
        if (evidence !== null && d.confidence >= GATE) items.push(evidence);
      }
      window.push(...session.turns);
    }
    cited.set(sample.id, items);
    trivial.set(
      sample.id,
      sample.sessions.flatMap((s) =>
        s.turns.filter((t) => FIRST_PERSON.test(t.text.replace(/’/gu, "'")) && t.text.trim().split(/\s+/u).length >= 8).map((t) => [t.mentionId]),
      ),
    );
  }
  const rules = score(samples, cited);
  const filter = score(samples, trivial);
  console.log(`LoCoMo ${which} (${samples.map((s) => s.id).join(', ')}): ${turns} turns, ${rules.observations} gold observations, gate ${GATE}`);
  console.log(
    `rules extractor: coverage ${pct(rules.covered, rules.observations)}, precision ${pct(rules.goldItems, rules.items)} ` +
      `(${rules.items} facts and events); turns cited ${rules.turns}, of which gold ${pct(rules.goldTurns, rules.turns)}`,
  );
  console.log(
    `  derived commands per turn ${(commands / turns).toFixed(2)} (${[...byOp].map(([op, n]) => `${op} ${n}`).join(', ')}), invalid ${invalid}`,
  );
  console.log(`  throughput ${((1000 * turns) / elapsed).toFixed(0)} turns/s (${(elapsed / 1000).toFixed(1)} s extracting)`);
  console.log(
    `trivial filter (first person, >= 8 words): coverage ${pct(filter.covered, filter.observations)}, ` +
      `precision ${pct(filter.goldItems, filter.items)} (${filter.items} turns)`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
