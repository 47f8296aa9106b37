import { CATEGORY_NAMES } from './locomo-data';

export interface QuestionScore {
  category: number;
  /** Recall at 5, 10, 25 mention items, and within a 600-token packed context. */
  r5: number;
  r10: number;
  r25: number;
  packed: number;
  /** Recall over the first 10 distinct turns the items retrieve (items repeating a turn take no slot); equals r10 with mentions only. */
  turns10?: number;
}

/** A search item as the benches read it. */
export interface SearchHit {
  kind: string;
  id: string;
  evidence?: { kind: string; id: string }[];
}

/**
 * The turns each search item retrieves, in answer order: a mention its own id; a fact the
 * mentions its `evidence` names; any other item the turns `cites` maps it to (by `kind:id`, e.g.
 * an event to the `derivedFrom` turns of the commands that wrote it, as its own evidence names
 * facts, not turns). Items retrieving no turn are left out, so with mentions only in memory
 * this is the mention items, each its own turn.
 */
export function retrievedTurns(items: readonly SearchHit[], cites?: ReadonlyMap<string, readonly string[]>): string[][] {
  const ranked: string[][] = [];
  for (const item of items) {
    const turns = new Set<string>();
    if (item.kind === 'mention') turns.add(item.id);
    if (item.kind === 'fact') for (const e of item.evidence ?? []) if (e.kind === 'mention') turns.add(e.id);
    for (const t of cites?.get(`${item.kind}:${item.id}`) ?? []) turns.add(t);
    if (turns.size > 0) ranked.push([...turns]);
  }
  return ranked;
}

/** Share of the gold evidence ids among `returned` (turn ids, in answer order). */
export function recall(gold: readonly string[], returned: readonly string[]): number {
  const got = new Set(returned);
  return gold.filter((id) => got.has(id)).length / gold.length;
}

export function report(label: string, scores: readonly QuestionScore[]): string[] {
  const row = (name: string, rows: readonly QuestionScore[]) => {
    const mean = (f: (s: QuestionScore) => number) => ((100 * rows.reduce((sum, s) => sum + f(s), 0)) / Math.max(1, rows.length)).toFixed(1);
    return (
      `${label.padEnd(9)} ${name.padEnd(12)} n=${String(rows.length).padStart(4)}  ` +
      `R@5 ${mean((s) => s.r5).padStart(5)}  R@10 ${mean((s) => s.r10).padStart(5)}  R@25 ${mean((s) => s.r25).padStart(5)}  ` +
      `600-token ${mean((s) => s.packed).padStart(5)}`
    );
  };
  return [
    row('overall', scores),
    ...Object.entries(CATEGORY_NAMES).map(([c, name]) =>
      row(
        name,
        scores.filter((s) => s.category === Number(c)),
      ),
    ),
  ];
}
