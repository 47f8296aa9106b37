import type { VectorSource } from '../embedded-recall';

const hashVector = (hash: string) => Float32Array.from([0, 1, 2, 3], (d) => (hash.charCodeAt(d) % 7) - 3);

/**
 * Vectors made from the text hash itself (4-d, so equal texts tie), none for a quarter of the
 * hashes (not projected yet): what a search ranks with vectors must not depend on how they are found.
 */
export const hashVectorSource: VectorSource = {
  model: 'hash-4',
  cosineFloor: 0.1,
  queryVector: async (query) => hashVector(query.padEnd(4, 'x')),
  vectors: async (hashes) => new Map(hashes.filter((h) => h.charCodeAt(5) % 4 !== 0).map((h) => [h, hashVector(h)])),
};
