/** A benchmark's integer setting (a flag or an environment variable): `fallback` when unset, else at least `min`. */
export function integerSetting(name: string, value: string | number | undefined, fallback: number, min: number): number {
  const n = value === undefined || value === '' ? fallback : Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got ${value}`);
  return n;
}
