/**
 * The merge forest: which root each merged entity was merged into, the canonical id of any
 * entity (the root of its class) and each class's members (root first, then in merge order).
 *
 * A union-find whose sets are named apart from their representatives: the smaller set joins
 * the larger (union by size) whatever the merge's direction, so a find takes at most log2(n)
 * steps, and the members form a linked list that a merge joins in O(1). Following the recorded
 * parents and copying member arrays instead would make a chain of merges (each class merged into
 * a new entity) quadratic to fold, and again to rebuild for a query.
 */
export class MergeClasses {
  /** As recorded: a merged root → the root it was merged into. */
  private readonly recorded = new Map<string, string>();
  /** Union-find parents; an id without one represents its set. */
  private readonly parent = new Map<string, string>();
  /** Per representative of a set of more than one id (see sizeOf). */
  private readonly sizes = new Map<string, number>();
  /** Per representative whose set's root is another id (see rootOf). */
  private readonly roots = new Map<string, string>();
  /** Per representative of a set of more than one id: its last member (see tailOf). */
  private readonly tails = new Map<string, string>();
  /** The member after each member of its class. */
  private readonly next = new Map<string, string>();

  /** Merged roots, each with the root it was merged into, in merge order. */
  get mergedInto(): ReadonlyMap<string, string> {
    return this.recorded;
  }

  /** The class of root `srcRoot` joins the class of root `dstRoot`, whose root stays canonical. */
  merge(srcRoot: string, dstRoot: string): void {
    const src = this.find(srcRoot);
    const dst = this.find(dstRoot);
    if (src === dst) return;
    this.recorded.set(srcRoot, dstRoot);
    const root = this.rootOf(dst);
    const tail = this.tailOf(src);
    this.next.set(this.tailOf(dst), this.rootOf(src)); // dst's members, then src's
    const [srcSize, dstSize] = [this.sizeOf(src), this.sizeOf(dst)];
    const [kept, joined] = srcSize > dstSize ? [src, dst] : [dst, src];
    this.parent.set(joined, kept);
    this.sizes.set(kept, srcSize + dstSize);
    this.tails.set(kept, tail);
    if (kept === root) this.roots.delete(kept);
    else this.roots.set(kept, root);
    this.sizes.delete(joined);
    this.tails.delete(joined);
    this.roots.delete(joined);
  }

  /** The canonical id of `id` (itself when never merged). */
  canonical(id: string): string {
    return this.rootOf(this.find(id));
  }

  /** Every id whose canonical id is `id`'s: root first, then in merge order; `[id]` when never merged. */
  classOf(id: string): string[] {
    const representative = this.find(id);
    const last = this.tailOf(representative);
    const members = [this.rootOf(representative)];
    for (let member = members[0]!; member !== last;) {
      member = this.next.get(member)!;
      members.push(member);
    }
    return members;
  }

  /** How many ids share `id`'s canonical id. */
  classSize(id: string): number {
    return this.sizeOf(this.find(id));
  }

  /** At most log2(ids) steps (union by size); reads leave the forest as folded. */
  private find(id: string): string {
    let current = id;
    for (let up = this.parent.get(current); up !== undefined; up = this.parent.get(current)) current = up;
    return current;
  }

  private rootOf(representative: string): string {
    return this.roots.get(representative) ?? representative;
  }

  private tailOf(representative: string): string {
    return this.tails.get(representative) ?? representative;
  }

  private sizeOf(representative: string): number {
    return this.sizes.get(representative) ?? 1;
  }
}
