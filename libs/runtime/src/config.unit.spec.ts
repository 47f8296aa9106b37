import { heapBounds, readConfig } from './config';

describe('the caches bounds', () => {
  it('follow the heap: more heap, larger bounds; a small heap still bounds both', () => {
    const MiB = 2 ** 20;
    const small = heapBounds(218 * MiB);
    const large = heapBounds(1124 * MiB);
    expect(large.stateCacheRecords).toBeGreaterThan(small.stateCacheRecords);
    expect(large.searchCacheVersions).toBeGreaterThan(small.searchCacheVersions);
    // What the bounds let the caches hold (about 500 bytes an item) stays within the heap left besides the service's own.
    for (const heap of [150, 218, 855, 1124, 4144].map((mb) => mb * MiB)) {
      const { stateCacheRecords, searchCacheVersions } = heapBounds(heap);
      expect((stateCacheRecords + searchCacheVersions) * 500).toBeLessThan(heap - 128 * MiB + 1000 * 1000);
    }
    expect(heapBounds(0)).toEqual({ stateCacheRecords: 1000, searchCacheVersions: 1000 });
  });

  it('are read from the environment, else from the heap limit', () => {
    const heap = 855 * 2 ** 20;
    expect(readConfig({}, heap)).toMatchObject(heapBounds(heap));
    expect(readConfig({ STATE_CACHE_RECORDS: '5000', SEARCH_CACHE_VERSIONS: '7000' }, heap)).toMatchObject({
      stateCacheRecords: 5000,
      searchCacheVersions: 7000,
    });
    expect(() => readConfig({ STATE_CACHE_RECORDS: '0' }, heap)).toThrow(/STATE_CACHE_RECORDS must be a positive integer/);
  });
});
