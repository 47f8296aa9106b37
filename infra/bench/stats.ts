/** Percentiles of latency samples in milliseconds. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function summary(samples: readonly number[]): string {
  return (
    `p50 ${percentile(samples, 50).toFixed(2)} ms, p95 ${percentile(samples, 95).toFixed(2)} ms, ` +
    `p99 ${percentile(samples, 99).toFixed(2)} ms (n=${samples.length})`
  );
}

export async function timed<T>(samples: number[], work: () => Promise<T>): Promise<T> {
  const start = process.hrtime.bigint();
  const result = await work();
  samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  return result;
}
