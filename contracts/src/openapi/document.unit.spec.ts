import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { buildOpenApiDocument } from './document';

type Obj = Record<string, any>;

const SPEC_PATHS: [string, string][] = [
  ['get', '/v1/memories'],
  ['post', '/v1/memories/{memoryId}/commands'],
  ['get', '/v1/memories/{memoryId}/facts'],
  ['get', '/v1/memories/{memoryId}/facts/{factId}/history'],
  ['get', '/v1/memories/{memoryId}/facts/{factId}/audit'],
  ['get', '/v1/memories/{memoryId}/entities/{entityId}'],
  ['get', '/v1/memories/{memoryId}/events'],
  ['get', '/v1/memories/{memoryId}/changes'],
  ['post', '/v1/memories/{memoryId}/search'],
  ['post', '/v1/memories/{memoryId}/check'], // SPEC 5.3
  ['get', '/v1/memories/{memoryId}/export'],
  ['post', '/v1/memories/{memoryId}/import'],
  ['delete', '/v1/memories/{memoryId}'], // SPEC §5.2
  ['post', '/v1/memories/{memoryId}/turns'], // SPEC §5.1
  ['get', '/v1/memories/{memoryId}/mentions/{mentionId}/derived'], // SPEC §5.1
  ['get', '/healthz'],
  ['get', '/readyz'],
  ['get', '/metrics'],
  ['get', '/docs'],
];

/** Beyond SPEC §4: the operations routes (verify, blue/green rebuild). */
const OPERATIONS_PATHS: [string, string][] = [
  ['get', '/v1/memories/{memoryId}/verify'],
  ['post', '/v1/admin/rebuild'],
  ['get', '/v1/admin/rebuild'],
  ['get', '/v1/memories/{memoryId}/entities'], // a read beyond SPEC §4: entities found by name
  ['get', '/v1/memories/{memoryId}/mentions'], // reads beyond SPEC §4: a document's mentions, and one mention
  ['get', '/v1/memories/{memoryId}/mentions/{mentionId}'],
  ['post', '/v1/memories/{memoryId}/reextract'], // derives again from recorded turns with the current extractor
  ['get', '/v1/memories/{memoryId}/extraction'], // the memory's extraction gate (SPEC §5.1 "the memory's gate")
  ['post', '/mcp'], // MCP over streamable HTTP
  ['get', '/v1/memories/{memoryId}/episodes'], // SPEC §3.2's episodes at a cut
  ['get', '/v1/access'], // what the key of the request may do
  ['post', '/v1/memories/{memoryId}/consolidate'], // SPEC §5.4
  ['get', '/v1/memories/{memoryId}/topics'], // SPEC §5.4
];

/** Every `$ref` string anywhere in `value`. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refs(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument() as Obj;

  it('is OpenAPI 3.1.0 and survives a JSON round trip', () => {
    expect(doc.openapi).toBe('3.1.0');
    const text = JSON.stringify(doc);
    expect(JSON.parse(text)).toStrictEqual(doc);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  });

  it('has every path of SPEC §4 with its method, and no other', () => {
    for (const [method, p] of SPEC_PATHS) expect(doc.paths[p]?.[method]).toBeDefined();
    expect(Object.keys(doc.paths).sort()).toEqual([...new Set([...SPEC_PATHS, ...OPERATIONS_PATHS].map(([, p]) => p))].sort());
  });

  it('documents the verify and rebuild routes with their zod-generated schemas', () => {
    for (const [method, p] of OPERATIONS_PATHS) expect(doc.paths[p]?.[method]).toBeDefined();
    const okRef = (p: string, method: string, status = '200') => doc.paths[p][method].responses[status].content['application/json'].schema.$ref;
    expect(okRef('/v1/memories/{memoryId}/verify', 'get')).toBe('#/components/schemas/VerifyResponse');
    expect(doc.paths['/v1/memories/{memoryId}/verify'].get.parameters.map((x: Obj) => x.name)).toEqual(['memoryId', 'recordedAt']);
    expect(okRef('/v1/admin/rebuild', 'post', '202')).toBe('#/components/schemas/RebuildStatus');
    expect(okRef('/v1/admin/rebuild', 'get')).toBe('#/components/schemas/RebuildStatus');
    expect(doc.paths['/v1/admin/rebuild'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/RebuildRequest');
    expect(doc.components.schemas.RebuildStatus.properties.state.enum).toEqual(['idle', 'running', 'done', 'failed']);
    expect(doc.components.schemas.VerifyResponse.required).toEqual(expect.arrayContaining(['consistent', 'differences']));
  });

  it('declares every path template parameter as a required path parameter', () => {
    for (const [method, p] of SPEC_PATHS) {
      const declared = (doc.paths[p][method].parameters ?? []).filter((x: Obj) => x.in === 'path');
      const templated = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(declared.map((x: Obj) => x.name).sort()).toEqual(templated.sort());
      for (const param of declared) expect(param.required).toBe(true);
    }
  });

  it('documents query parameters from the query schemas', () => {
    const facts = doc.paths['/v1/memories/{memoryId}/facts'].get.parameters.filter((x: Obj) => x.in === 'query');
    expect(facts.map((x: Obj) => x.name).sort()).toEqual([
      'after',
      'consistency',
      'dst',
      'include',
      'limit',
      'minPosition',
      'recordedAt',
      'rel',
      'src',
      'validAt',
    ]);
    // Several src: the parameter once per id (OpenAPI's default form style, exploded).
    expect(facts.find((x: Obj) => x.name === 'src').schema).toMatchObject({ type: 'array', maxItems: 100, items: { type: 'string' } });
    const changes = doc.paths['/v1/memories/{memoryId}/changes'].get.parameters.filter((x: Obj) => x.in === 'query');
    expect(changes).toEqual([
      expect.objectContaining({ name: 'from', required: true }),
      expect.objectContaining({ name: 'to', required: false }),
      expect.objectContaining({ name: 'limit', required: false }),
      expect.objectContaining({ name: 'include', required: false }),
      expect.objectContaining({ name: 'minPosition', required: false }),
    ]);
    // Both inclusions of a facts read: the parameter once per kind.
    expect(facts.find((x: Obj) => x.name === 'include').schema).toMatchObject({ type: 'array', items: { enum: ['entities', 'mentions'] } });
    const consistency = facts.find((x: Obj) => x.name === 'consistency');
    expect(consistency).toMatchObject({ required: false, schema: { enum: ['projection', 'replay'], default: 'projection' } });
  });

  it('has request bodies and error responses', () => {
    const commands = doc.paths['/v1/memories/{memoryId}/commands'].post;
    expect(commands.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CommandsRequest' });
    for (const status of ['200', '400', '404', '409', '413']) expect(commands.responses[status]).toBeDefined();
    expect(commands.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    expect(doc.paths['/v1/memories/{memoryId}/search'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SearchRequest',
    });
    expect(doc.paths['/v1/memories/{memoryId}/import'].post.requestBody.content['application/x-ndjson']).toBeDefined();
    for (const [method, p] of SPEC_PATHS) {
      if (p.startsWith('/v1/')) expect(doc.paths[p][method].responses['400']).toBeDefined();
    }
  });

  it('generates component schemas from zod: strict commands, one per op, every $ref resolvable', () => {
    const schemas = doc.components.schemas as Obj;
    expect(schemas.Command.oneOf).toHaveLength(14);
    const edge = schemas.UpsertEdgeCommand;
    expect(edge.additionalProperties).toBe(false);
    expect([...edge.required].sort()).toEqual(['dst', 'op', 'rel', 'src']);
    expect(edge.properties.op).toMatchObject({ const: 'UPSERT_EDGE' });
    expect(schemas.CommandsRequest.properties.commands).toMatchObject({ minItems: 1, maxItems: 1000 });
    expect(schemas.Instant).toMatchObject({ type: 'string', pattern: expect.any(String) });
    expect(schemas.FactVersion.required).toContain('validTo');
    for (const r of refs(doc)) {
      expect(r).toMatch(/^#\/components\/schemas\//);
      expect(schemas[r.replace('#/components/schemas/', '')]).toBeDefined();
    }
    for (const s of Object.values(schemas)) {
      expect(s).not.toHaveProperty('$schema');
      expect(s).not.toHaveProperty('$id');
    }
  });

  it('names no internal issue numbers, and documents both faces of /docs', () => {
    expect(JSON.stringify(doc)).not.toMatch(/\bissue #?\d+/i);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(Object.keys(doc.paths['/docs'].get.responses['200'].content).sort()).toEqual(['application/json', 'text/html']);
  });

  it('is printed as JSON by print.ts', () => {
    const root = path.resolve(__dirname, '../../..');
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'contracts/src/openapi/print.ts'], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toStrictEqual(doc);
  }, 30000);
});
