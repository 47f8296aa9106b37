import type { CommandBody, EdgeTarget, Instant } from '@memotrace/domain';

/** An open, unerased fact version as consolidation reads it: its ends as stored and as canonical at the run. */
export interface RestatedSource {
  factId: string;
  /** As stored on the fact (an UPSERT_EDGE naming the fact must name these). */
  src: string;
  rel: string;
  dst: EdgeTarget;
  /** The canonical ids of src and an entity dst, through the merges known now. */
  canonicalSrc: string;
  canonicalDst: EdgeTarget;
  validFrom: Instant;
  validTo: Instant | null;
  evidence: readonly string[];
  /** When its first version was recorded. */
  firstRecordedAt: Instant;
  /** When its open version was recorded: an archive of it names it, so a fact restated again after one is archived again. */
  openedAt: Instant;
  /** An event believed now includes it: archiving it would take the event out of every later cut, so it stays open. */
  included: boolean;
}

/** A command of a run, and what its id is a digest of besides its content. */
export interface Derived {
  body: CommandBody;
  salt: string;
  /** Why, for the audit. */
  reason?: string;
}

/**
 * Facts restated by different writers (extractor versions, DSL clients, an entity merged since) stay one fact
 * gathering their evidence (SPEC 5.4): open facts that say the same `(src, rel, dst)` through the merges known
 * now, and end their validity alike, become one with every restatement's evidence: one an event includes if any
 * does, the one that holds earliest, then the one recorded first, then the smallest id. The others are archived,
 * but for those an event includes (its evidence must stay believed). Facts whose validity ends differ say
 * different things about time and stay apart.
 */
export function restatedFacts(facts: readonly RestatedSource[]): Derived[] {
  const groups = new Map<string, RestatedSource[]>();
  for (const fact of facts) {
    const key = JSON.stringify([fact.canonicalSrc, fact.rel, fact.canonicalDst, fact.validTo]);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [fact]);
    else group.push(fact);
  }
  const commands: Derived[] = [];
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    group.sort(
      (a, b) =>
        Number(b.included) - Number(a.included) ||
        compare(a.validFrom, b.validFrom) ||
        compare(a.firstRecordedAt, b.firstRecordedAt) ||
        compare(a.factId, b.factId),
    );
    const [keeper, ...restated] = group as [RestatedSource, ...RestatedSource[]];
    const evidence = [...new Set([...keeper.evidence, ...restated.flatMap((f) => f.evidence)])];
    const reason = `restated as ${keeper.factId}`;
    if (evidence.length > keeper.evidence.length) {
      const body: CommandBody = { op: 'UPSERT_EDGE', factId: keeper.factId, src: keeper.src, rel: keeper.rel, dst: keeper.dst, evidence };
      commands.push({ body, salt: keeper.openedAt, reason: 'gathers the evidence of the facts that restate it' });
    }
    for (const fact of restated) {
      if (!fact.included) commands.push({ body: { op: 'ARCHIVE_EDGE', factId: fact.factId }, salt: fact.openedAt, reason });
    }
  }
  return commands;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
