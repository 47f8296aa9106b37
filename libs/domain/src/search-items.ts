import type { SearchItemKind } from '@memotrace/contracts';

/**
 * The kinds of search items (SPEC §4), in the order answers list a cut's items: the one list the
 * query service's ranking, the embedded corpus and the OpenSearch documents derive theirs from.
 * The HTTP contract's enum is checked against it both ways, at compile time.
 */
export const SEARCH_ITEM_KINDS = ['event', 'fact', 'mention', 'episode'] as const satisfies readonly SearchItemKind[];

export type ItemKind = (typeof SEARCH_ITEM_KINDS)[number];

/** Each kind's place in SEARCH_ITEM_KINDS: answers list kinds in this order. */
export const KIND_RANK: Readonly<Record<ItemKind, number>> = Object.fromEntries(SEARCH_ITEM_KINDS.map((kind, rank) => [kind, rank])) as Record<
  ItemKind,
  number
>;

// Every kind of the contract is one of the list (the `satisfies` above checks the other way).
const contractKindsListed: SearchItemKind extends ItemKind ? true : never = true;
void contractKindsListed;
