import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Observation } from './locomo-data';

/**
 * Statements scored against gold observations with the shared scorer
 * (`../shared/eval/statement-match.mjs`, or STATEMENT_MATCH): read in place, never copied. A
 * statement is a derived fact as "<subject name> <rel> <object>" or an event's summary, with the
 * turns it cites. Recall: share of observations that a statement citing one of their turns says
 * (`matches`); precision: share of statements that say an observation of one of their turns;
 * copies: statements that repeat one of their turns' words (`isCopy`, of the statement or of what it holds:
 * a fact's literal, an event's summary without a leading speaker's name), which count as no statement.
 */
export interface ScoredStatement {
  text: string;
  turns: string[];
  /** What it holds of its own: a fact's literal object, an event's summary after a leading "Name:" (a copy there is a copy too). */
  content?: string;
}

interface Scorer {
  matches(statement: string, observation: string, drop?: string[]): boolean;
  isCopy(text: string, turnText: string): boolean;
}

export interface StatementScore {
  observations: number;
  recalled: number;
  statements: number;
  precise: number;
  copies: number;
  /** Each statement with whether it matched, for a look at what is derived. */
  judged: { text: string; turns: string[]; matched: boolean; copy: boolean }[];
  /** The observations no statement says. */
  missed: Observation[];
}

const SCORER = process.env['STATEMENT_MATCH'] ?? resolve(__dirname, '../../../shared/eval/statement-match.mjs');

export async function loadScorer(): Promise<Scorer> {
  if (!existsSync(SCORER)) throw new Error(`the statement scorer is not at ${SCORER}: set STATEMENT_MATCH to statement-match.mjs`);
  return (await import(pathToFileURL(SCORER).href)) as Scorer;
}

export function scoreStatements(
  scorer: Scorer,
  statements: readonly ScoredStatement[],
  observations: readonly Observation[],
  turnText: ReadonlyMap<string, string>,
): StatementScore {
  const byTurn = new Map<string, Observation[]>();
  for (const o of observations) for (const id of o.evidence) byTurn.set(id, [...(byTurn.get(id) ?? []), o]);
  const recalled = new Set<Observation>();
  const score: StatementScore = { observations: observations.length, recalled: 0, statements: 0, precise: 0, copies: 0, judged: [], missed: [] };
  for (const s of statements) {
    const copy = s.turns.some((t) => [s.text, s.content ?? ''].some((text) => scorer.isCopy(text, turnText.get(t) ?? '')));
    if (copy) {
      score.copies++;
      score.judged.push({ ...s, matched: false, copy });
      continue;
    }
    score.statements++;
    let matched = false;
    for (const o of new Set(s.turns.flatMap((t) => byTurn.get(t) ?? []))) {
      if (!scorer.matches(s.text, o.text)) continue;
      matched = true;
      recalled.add(o);
    }
    if (matched) score.precise++;
    score.judged.push({ ...s, matched, copy });
  }
  score.recalled = recalled.size;
  score.missed = observations.filter((o) => !recalled.has(o));
  return score;
}
