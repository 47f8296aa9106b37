import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { textHash } from '../text-hash';
import type { EmbeddingProvider } from './port';

export interface EmbeddingCacheOptions {
  /** Most vectors kept in memory (default 200,000: about 400 MB at 512-d). Oldest go first. */
  maxEntries?: number;
  /** A directory where vectors are also kept across runs (one JSONL file per model). */
  dir?: string | undefined;
}

/**
 * Memoizes a provider by (model, text hash): a text is embedded once per process (and
 * once ever with `dir`), and one call embeds only the texts neither seen nor being embedded
 * by another call. `forget` drops erased texts' vectors from memory and from the file.
 */
export function cachedEmbeddings(provider: EmbeddingProvider, options: EmbeddingCacheOptions = {}): EmbeddingProvider {
  const max = options.maxEntries ?? 200_000;
  const memory = new Map<string, Float32Array>();
  const file = options.dir === undefined ? undefined : join(options.dir, `${provider.model.replace(/[^\w.-]+/g, '_')}.jsonl`);
  if (file !== undefined) {
    mkdirSync(options.dir!, { recursive: true });
    if (existsSync(file)) for (const line of readFileSync(file, 'utf8').split('\n')) if (line !== '') restore(memory, line);
  }
  const remember = (hash: string, vector: Float32Array) => {
    if (memory.size >= max) memory.delete(memory.keys().next().value!);
    memory.set(hash, vector);
  };
  /** Texts being embedded now, by hash: the call embedding them answers their vectors. */
  const inFlight = new Map<string, Promise<Map<string, Float32Array>>>();
  const embedMissing = async (missing: ReadonlyMap<string, string>): Promise<Map<string, Float32Array>> => {
    const vectors = await provider.embed([...missing.values()]);
    const embedded = new Map<string, Float32Array>();
    const lines: string[] = [];
    [...missing.keys()].forEach((hash, i) => {
      const vector = vectors[i]!;
      embedded.set(hash, vector);
      remember(hash, vector);
      if (file !== undefined) lines.push(JSON.stringify([hash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')]));
    });
    if (file !== undefined) appendFileSync(file, lines.join('\n') + '\n');
    return embedded;
  };
  return {
    model: provider.model,
    cosineFloor: provider.cosineFloor,
    dimension: provider.dimension,
    async embed(texts) {
      const hashes = texts.map(textHash);
      const missing = new Map<string, string>();
      for (let i = 0; i < texts.length; i++) if (!memory.has(hashes[i]!) && !inFlight.has(hashes[i]!)) missing.set(hashes[i]!, texts[i]!);
      if (missing.size > 0) {
        const batch = embedMissing(missing);
        for (const hash of missing.keys()) inFlight.set(hash, batch);
        const settled = () => {
          for (const hash of missing.keys()) if (inFlight.get(hash) === batch) inFlight.delete(hash);
        };
        batch.then(settled, settled);
      }
      // Texts another call is embedding (the search index and OpenSearch projections take the same batches) are waited for, not embedded again.
      const waited = new Map<string, Float32Array>();
      for (const hash of new Set(hashes)) {
        const batch = inFlight.get(hash);
        const vector = batch === undefined ? undefined : (await batch).get(hash);
        if (vector !== undefined) waited.set(hash, vector);
      }
      return hashes.map((h, i) => memory.get(h) ?? waited.get(h) ?? missingAfterEviction(texts[i]!));
    },
    forget(hashes) {
      if (hashes.length === 0) return;
      for (const hash of hashes) memory.delete(hash);
      if (file !== undefined && existsSync(file)) forgetInFile(file, new Set(hashes));
      provider.forget?.(hashes);
    },
  };
}

/** Rewrites the file without the lines of `hashes` (then renamed over it: a crash leaves the old file or the new one). */
function forgetInFile(file: string, hashes: ReadonlySet<string>): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  const kept = lines.filter((line) => line !== '' && !hashes.has(hashOfLine(line)));
  if (kept.length === lines.filter((line) => line !== '').length) return;
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, kept.length === 0 ? '' : kept.join('\n') + '\n');
  renameSync(next, file);
}

/** A line is `["<hash>","<base64>"]`; a torn one has no hash. */
function hashOfLine(line: string): string {
  const end = line.indexOf('"', 2);
  return line.startsWith('["') && end > 2 ? line.slice(2, end) : '';
}

function restore(memory: Map<string, Float32Array>, line: string): void {
  try {
    const [hash, base64] = JSON.parse(line) as [string, string];
    const bytes = Buffer.from(base64, 'base64');
    memory.set(hash, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
  } catch {
    // a torn last line (crash mid-append) is skipped: that text is embedded again
  }
}

function missingAfterEviction(text: string): never {
  throw new Error(`embedding cache too small for one call (text ${JSON.stringify(text.slice(0, 40))} evicted)`);
}
