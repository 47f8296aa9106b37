import type { ListNamespacesOperation, MatchCondition } from '@langchain/langgraph-checkpoint';

/** Namespace arithmetic of the LangGraph store, on lists of labels. */

export function hasPrefix(namespace: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= namespace.length && prefix.every((label, i) => namespace[i] === label);
}

/** A prefix or suffix condition; `*` matches any one label. */
export function matchesCondition(namespace: readonly string[], { matchType, path }: MatchCondition): boolean {
  if (path.length > namespace.length) return false;
  const offset = matchType === 'prefix' ? 0 : namespace.length - path.length;
  return path.every((label, i) => label === '*' || namespace[offset + i] === label);
}

/** Label by label, a namespace before the namespaces under it. */
export function compareNamespaces(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}

/** `listNamespaces` over the namespaces that hold items: match every condition, cut to maxDepth, distinct, sorted, one page. */
export function listNamespaces(namespaces: readonly (readonly string[])[], op: ListNamespacesOperation): string[][] {
  const distinct = new Map<string, string[]>();
  for (const namespace of namespaces) {
    if (!(op.matchConditions ?? []).every((condition) => matchesCondition(namespace, condition))) continue;
    const cut = op.maxDepth === undefined ? [...namespace] : namespace.slice(0, op.maxDepth);
    distinct.set(JSON.stringify(cut), cut);
  }
  const offset = op.offset ?? 0;
  return [...distinct.values()].sort(compareNamespaces).slice(offset, offset + (op.limit ?? distinct.size));
}
