import { CATEGORY_NAMES } from './locomo-data';

export interface QuestionScore {
  category: number;
  /** Recall at 5, 10, 25 mention items, and within a 600-token packed context. */
  r5: number;
  r10: number;
  r25: number;
  packed: number;
}

/** Share of the gold evidence ids among `returned` (mention ids, in answer order). */
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
