import type { CpuSpent } from './cpu';

/** One variant's measured rounds. */
export interface VariantRounds {
  name: string;
  /** Commands/s of each round. */
  rates: number[];
  /** CPU seconds per command of each round (Node plus PostgreSQL; Node alone when PostgreSQL cannot be read). */
  cpu: number[];
}

/** What each round of a variant does: writes a fresh memory, and says how many commands it wrote and what CPU that took. */
export type Round = (memoryId: string) => Promise<{ commands: number; cpu: CpuSpent }>;

/**
 * Rounds of two variants in pairs, alternating which goes first, after an unmeasured warm-up pair;
 * each round writes a fresh memory per variant. Returns each variant's rounds and, per pair, the
 * sealed variant's extra time and CPU over the plain one's.
 */
export async function pairedRounds(
  rounds: number,
  sealed: { name: string; round: Round },
  plain: { name: string; round: Round },
  log: (line: string) => void,
): Promise<{ sealed: VariantRounds; plain: VariantRounds; time: number[]; cpu: number[] }> {
  const results = new Map([sealed, plain].map((variant) => [variant, { name: variant.name, rates: [] as number[], cpu: [] as number[] }]));
  const time: number[] = [];
  const cpu: number[] = [];
  for (let round = -1; round < rounds; round++) {
    const order = round % 2 === 0 ? [sealed, plain] : [plain, sealed];
    const measured = new Map<typeof sealed, { seconds: number; cpuPerCommand: number }>();
    for (const variant of order) {
      const started = performance.now();
      const { commands, cpu: spent } = await variant.round(`${variant.name}-${round < 0 ? 'warmup' : round}`);
      const seconds = (performance.now() - started) / 1000;
      measured.set(variant, { seconds, cpuPerCommand: (spent.node + (spent.postgres ?? 0)) / commands });
      if (round < 0) continue;
      results.get(variant)!.rates.push(commands / seconds);
      results.get(variant)!.cpu.push(measured.get(variant)!.cpuPerCommand);
    }
    if (round < 0) continue;
    time.push(measured.get(sealed)!.seconds / measured.get(plain)!.seconds - 1);
    cpu.push(measured.get(sealed)!.cpuPerCommand / measured.get(plain)!.cpuPerCommand - 1);
    log(
      `  round ${round + 1} (${order[0]!.name} first): ${sealed.name} ${int(results.get(sealed)!.rates.at(-1)!)}, ` +
        `${plain.name} ${int(results.get(plain)!.rates.at(-1)!)} commands/s; time ${pct(time.at(-1)!)}, CPU ${pct(cpu.at(-1)!)}`,
    );
  }
  return { sealed: results.get(sealed)!, plain: results.get(plain)!, time, cpu };
}

export const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
export const int = (value: number) => Math.round(value).toLocaleString('en-US');
export const pct = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;
export const spread = (values: readonly number[]) => `${int(Math.min(...values))}–${int(Math.max(...values))}`;
export const pctRange = (values: readonly number[]) => `${pct(median(values))} (${pct(Math.min(...values))} to ${pct(Math.max(...values))})`;

/** Lines saying what two variants' rounds measured. */
export function describeIngest(name: string, result: Awaited<ReturnType<typeof pairedRounds>>): string[] {
  const { sealed, plain } = result;
  const cpuUs = (values: number[]) => `${(median(values) * 1e6).toFixed(1)} µs`;
  return [
    `${name}, plain : median ${int(median(plain.rates))} commands/s (${spread(plain.rates)}), CPU ${cpuUs(plain.cpu)}/command`,
    `${name}, sealed: median ${int(median(sealed.rates))} commands/s (${spread(sealed.rates)}), CPU ${cpuUs(sealed.cpu)}/command`,
    `${name}, sealing's cost: time ${pct(median(plain.rates) / median(sealed.rates) - 1)} from the medians; ` +
      `paired rounds: time ${pctRange(result.time)}, CPU ${pctRange(result.cpu)}`,
  ];
}
