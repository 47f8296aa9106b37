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
 * once ever with `dir`), and one call embeds only the texts it has not seen. `forget`
 * drops erased texts' vectors from memory and from the file.
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
  return {
    model: provider.model,
    cosineFloor: provider.cosineFloor,
    dimension: provider.dimension,
    async embed(texts) {
      const hashes = texts.map(textHash);
      const missing = [
        ...new Set(
          hashes
            .map((h, i) => (memory.has(h) ? -1 : i))
            .filter((i) => i >= 0)
            .map((i) => texts[i]!),
        ),
      ];
      if (missing.length > 0) {
        const vectors = await provider.embed(missing);
        const lines: string[] = [];
        missing.forEach((text, i) => {
          const hash = textHash(text);
          remember(hash, vectors[i]!);
          if (file !== undefined)
            lines.push(JSON.stringify([hash, Buffer.from(vectors[i]!.buffer, vectors[i]!.byteOffset, vectors[i]!.byteLength).toString('base64')]));
        });
        if (file !== undefined) appendFileSync(file, lines.join('\n') + '\n');
      }
      return hashes.map((h, i) => memory.get(h) ?? missingAfterEviction(texts[i]!));
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
