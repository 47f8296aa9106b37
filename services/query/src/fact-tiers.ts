import type { Tier } from '@memotrace/domain';

/** Which of a memory's facts are cold (ItemTiers). */
export interface FactTiers {
  cold(memoryId: string, kind: 'fact', ids: readonly string[]): Promise<Set<string>>;
}

/** Fact versions as fact answers give them (SPEC 5.4): each with its fact's tier, every other field as it was. */
export type WithTiers = <F extends { factId: string }>(memoryId: string, facts: readonly F[]) => Promise<(F & { tier: Tier })[]>;

/**
 * The one place fact answers (facts, history, check) get their `tier`: after the read, from the statistics
 * that are no belief, so projection and replay answer alike and a cold fact answers as a hot one but for it.
 */
export function factTiers(tiers: FactTiers | undefined): WithTiers {
  return async (memoryId, facts) => {
    const cold = tiers && facts.length > 0 ? await tiers.cold(memoryId, 'fact', [...new Set(facts.map((f) => f.factId))]) : new Set<string>();
    return facts.map((f) => ({ ...f, tier: cold.has(f.factId) ? 'cold' : 'hot' }));
  };
}
