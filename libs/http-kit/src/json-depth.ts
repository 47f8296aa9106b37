/** Deeper than any request of the contract (a command is 4 levels), far below what could hurt. */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether a parsed JSON value nests objects/arrays deeper than `limit` (the top level is 1).
 * Iterative, so a hostile body cannot exhaust the stack here either.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
