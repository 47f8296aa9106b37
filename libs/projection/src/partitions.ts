/**
 * Work sharing between projector processes: memories are hashed into
 * `count` partitions; each partition has its own checkpoint row, committed in the
 * same transaction as its read-model writes. One partition (the default) keeps the
 * plain projection name, so a single projector's checkpoint row is the one it has without partitions.
 */
export interface Partition {
  index: number;
  count: number;
}

export const WHOLE_LOG: Partition = { index: 0, count: 1 };

export function assertPartition(partition: Partition): void {
  const { index, count } = partition;
  if (!Number.isInteger(count) || count < 1 || count > 1024) throw new Error(`partition count must be an integer in 1..1024, got ${count}`);
  if (!Number.isInteger(index) || index < 0 || index >= count) throw new Error(`partition index must be an integer in 0..${count - 1}, got ${index}`);
}

/** FNV-1a (32 bit) of the memory id, mod count: stable across processes and restarts. */
export function partitionOf(memoryId: string, count: number): number {
  if (count === 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < memoryId.length; i++) {
    hash ^= memoryId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/** The checkpoint row of a projection's partition: `read-models` alone, or `read-models@2/4`. */
export function checkpointName(projection: string, partition: Partition): string {
  return partition.count === 1 ? projection : `${projection}@${partition.index}/${partition.count}`;
}

/** Every checkpoint row of one partition layout of a projection. */
export function layoutCheckpoints(projection: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => checkpointName(projection, { index, count }));
}

/** `isCheckpointOf` as a condition on `rm_checkpoints.projection`, the projection's name in parameter `param`. */
export function checkpointsOfSql(param: string): string {
  return `(projection = ${param} OR left(projection, length(${param}) + 1) = ${param} || '@')`;
}

/** True for the projection's own row and any of its partition rows (of any layout). */
export function isCheckpointOf(name: string, projection: string): boolean {
  return name === projection || (name.startsWith(`${projection}@`) && /^\d+\/\d+$/.test(name.slice(projection.length + 1)));
}
