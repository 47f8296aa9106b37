import { relationPhrase } from '@memotrace/domain';
import { readTurn } from '../../libs/extraction/src/rules/extractor';
import type { Statement } from '../../libs/extraction/src/rules/statements';
import { features } from '../../libs/extraction/src/rules/selection';
import { DEV, loadLocomo, loadObservations } from './locomo-data';
import { loadScorer } from './statement-score';

/**
 * `npx tsx infra/bench/statement-tune.ts`: fits the weights of the rules extractor's statement model
 * (libs/extraction/src/rules/selection.ts) on LoCoMo's DEV split only. Every statement the reader makes
 * of a dev turn is labelled by the shared scorer (does it say an observation of its turn?), and a
 * logistic regression with a small L2 penalty is fitted by Newton's method; the bias is then moved so
 * that the gate 0.5 keeps the statements whose precision on dev reaches TARGET (default 0.55). Prints
 * the weights to paste into selection.ts, and precision and recall at the gate.
 */
const TARGET = Number(process.env['TARGET'] ?? 0.55);
const L2 = 1;

async function main(): Promise<void> {
  const scorer = await loadScorer();
  const observations = loadObservations();
  const rows: { x: number[]; y: number; observations: Set<unknown>; turn: string; group: string; text: string }[] = [];
  let total = 0;
  for (const c of loadLocomo().filter((x) => DEV.includes(x.sampleId))) {
    const obs = observations.get(c.sampleId) ?? [];
    total += obs.length;
    for (const session of c.sessions) {
      session.turns.forEach((t, ti) => {
        const own = obs.filter((o) => o.evidence.includes(t.dia_id));
        const listener = [...new Set(session.turns.map((x) => x.speaker))].find((x) => x !== t.speaker);
        const before = session.turns[ti - 1];
        const reading = readTurn(
          t.text,
          session.at,
          listener,
          before !== undefined && before.speaker !== t.speaker && /\?\s*$/u.test(before.text.trim()),
        );
        let index = 0;
        for (const { statements } of reading.clauses) {
          for (const s of statements) {
            const who = s.subject.kind === 'named' ? s.subject.name : t.speaker;
            const object = 'literal' in s.object ? s.object.literal : s.object.entity;
            const text = `${who} ${relationPhrase(s.rel)} ${object}`;
            const matched = new Set(own.filter((o) => scorer.matches(text, o.text)));
            rows.push({
              x: features(s, reading.signals, index++),
              y: matched.size > 0 ? 1 : 0,
              observations: matched,
              turn: `${c.sampleId}:${t.dia_id}`,
              group: groupOf(s),
              text,
            });
          }
        }
      });
    }
  }
  const w = fit(
    rows.map((r) => r.x),
    rows.map((r) => r.y),
  );
  const p = (x: number[]) => 1 / (1 + Math.exp(-x.reduce((sum, xi, i) => sum + xi * w[i]!, 0)));
  const scored = rows.map((r) => ({ ...r, p: p(r.x) })).sort((a, b) => b.p - a.p);
  // The least probability at which the kept statements' precision still reaches TARGET.
  let kept = 0;
  let correct = 0;
  let threshold = 1;
  for (const r of scored) {
    kept++;
    correct += r.y;
    if (correct / kept >= TARGET) threshold = r.p;
  }
  w[0] = w[0]! - Math.log(threshold / (1 - threshold));
  const gated = scored.filter((r) => p(r.x) >= 0.5);
  const recalled = new Set(gated.flatMap((r) => [...r.observations]));
  console.log(`dev: ${rows.length} statements, ${rows.filter((r) => r.y === 1).length} matching; ${total} observations`);
  console.log(
    `at gate 0.5: ${gated.length} statements, precision ${pct(gated.filter((r) => r.y === 1).length, gated.length)}, ` +
      `recall ${pct(recalled.size, total)}`,
  );
  const groups = new Map<string, [number, number]>();
  for (const r of rows) {
    const [n, m] = groups.get(r.group) ?? [0, 0];
    groups.set(r.group, [n + 1, m + r.y]);
  }
  console.log(
    [...groups]
      .sort((a, b) => b[1][0] - a[1][0])
      .map(([g, [n, m]]) => `${g} ${m}/${n}`)
      .join(', '),
  );
  if (process.env['GROUP'] !== undefined) {
    for (const r of rows.filter((x) => x.group === process.env['GROUP'])) console.log(`${r.y ? '+' : '-'} ${r.text}`);
  }
  const turnsWith = new Set(rows.map((r) => r.turn));
  const turnsRight = new Set(rows.filter((r) => r.y === 1).map((r) => r.turn));
  const withObs = new Set(rows.filter((r) => r.observations.size > 0 || r.y === 1).map((r) => r.turn));
  console.log(`turns with a statement ${turnsWith.size}, of which with a matching one ${turnsRight.size} (${withObs.size})`);
  // The best statement of each turn kept from a lower probability on.
  const best = new Map<string, number>();
  for (const r of scored) if (!best.has(r.turn)) best.set(r.turn, p(r.x));
  for (const low of [0.25, 0.3, 0.35, 0.4, 0.45]) {
    const kept = scored.filter((r) => p(r.x) >= 0.5 || (best.get(r.turn) === p(r.x) && p(r.x) >= low));
    const rec = new Set(kept.flatMap((r) => [...r.observations]));
    const precise = pct(kept.filter((r) => r.y === 1).length, kept.length);
    console.log(`  turn's best from ${low}: ${kept.length} statements, precision ${precise}, recall ${pct(rec.size, total)}`);
  }
  for (const k of [1, 2, 3]) {
    const perTurn = new Map<string, number>();
    const capped = scored.filter((r) => {
      const n = perTurn.get(r.turn) ?? 0;
      perTurn.set(r.turn, n + 1);
      return n < k;
    });
    for (const t of [0.3, 0.4, 0.5, 0.6]) {
      const kept = capped.filter((r) => p(r.x) >= t);
      const rec = new Set(kept.flatMap((r) => [...r.observations]));
      console.log(
        `  at most ${k} a turn, p >= ${t}: ${kept.length} statements, ` +
          `precision ${pct(kept.filter((r) => r.y === 1).length, kept.length)}, recall ${pct(rec.size, total)}`,
      );
    }
  }
  console.log(`const WEIGHTS = [${w.map((x) => x.toFixed(4)).join(', ')}];`);
}

function groupOf(s: Statement): string {
  if (s.canonical) return s.rel;
  if (['values', 'finds', 'believes'].includes(s.rel)) return s.rel;
  const c = s.clause;
  return [c.mode, c.copula ? 'copula' : '', c.negative ? 'negated' : '', c.subject.kind !== 'speaker' ? c.subject.kind : '']
    .filter((x) => x)
    .join(' ');
}

function pct(n: number, d: number): string {
  return `${((100 * n) / Math.max(1, d)).toFixed(1)}%`;
}

/** Logistic regression by Newton's method with an L2 penalty (the bias unpenalised). */
function fit(X: number[][], y: number[]): number[] {
  const d = X[0]!.length;
  let w = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 25; iter++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    X.forEach((x, n) => {
      const p = 1 / (1 + Math.exp(-x.reduce((s, xi, i) => s + xi * w[i]!, 0)));
      for (let i = 0; i < d; i++) {
        g[i]! += (p - y[n]!) * x[i]!;
        for (let j = 0; j < d; j++) H[i]![j]! += p * (1 - p) * x[i]! * x[j]!;
      }
    });
    for (let i = 1; i < d; i++) {
      g[i]! += L2 * w[i]!;
      H[i]![i]! += L2;
    }
    const step = solve(H, g);
    w = w.map((wi, i) => wi - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-6) break;
  }
  return w;
}

/** Gaussian elimination with partial pivoting. */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[pivot]![c]!)) pivot = r;
    [M[c], M[pivot]] = [M[pivot]!, M[c]!];
    const v = M[c]![c]! || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r]![c]! / v;
      for (let k = c; k <= n; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  return M.map((row, i) => row[n]! / (M[i]![i]! || 1e-12));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
