import Ajv2020 from 'ajv/dist/2020';
import type { z } from 'zod';
import { requestSchemas, responseSchemas } from './components';
import { buildOpenApiDocument } from './document';
import { OPERATIONS, TAGS } from './operations';

type Obj = Record<string, any>;

/**
 * Every operation of the OpenAPI document is described (summary, description, tags) and shows an
 * example of its request body, when it has one, and of its success response; each example parses
 * with the zod schema it illustrates, which is the schema the document names for that body, and
 * agrees with the document's generated JSON Schema.
 */
const doc = buildOpenApiDocument() as Obj;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const operations: [string, Obj][] = Object.entries(doc.paths as Obj).flatMap(([path, item]) =>
  Object.entries(item as Obj)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]): [string, Obj] => [`${method.toUpperCase()} ${path}`, operation]),
);
const REF = '#/components/schemas/';

/** The component a JSON body refers to: its name, its zod schema. */
function component(media: Obj, schemas: Record<string, z.ZodType>): { name: string; schema: z.ZodType } {
  const ref = media['schema']?.['$ref'] as string | undefined;
  if (ref === undefined || !ref.startsWith(REF)) throw new Error(`not a component reference: ${JSON.stringify(media['schema'])}`);
  const name = ref.slice(REF.length);
  return { name, schema: schemas[name]! };
}

function parses(schema: z.ZodType, example: unknown): string[] {
  const parsed = schema.safeParse(example);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('operations of the OpenAPI document', () => {
  const tagNames = TAGS.map((t) => t.name as string);
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'https://memotrace.invalid/openapi', components: doc.components });
  const jsonSchemaErrors = (name: string, example: unknown) => {
    const validate = ajv.getSchema(`https://memotrace.invalid/openapi#/components/schemas/${name}`)!;
    return validate(example) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };

  it('are many, and the table documents exactly them', () => {
    expect(operations.length).toBeGreaterThan(20);
    const ids = operations.map(([, operation]) => operation['operationId']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(OPERATIONS).sort()).toEqual([...ids].sort());
  });

  it.each(operations)('%s has a summary, a description and known tags', (_label, operation) => {
    expect(operation['summary']).toEqual(expect.stringMatching(/\S/));
    expect(operation['description']).toEqual(expect.stringMatching(/\S.{40,}/));
    expect(operation['tags'].length).toBeGreaterThan(0);
    for (const tag of operation['tags']) expect(tagNames).toContain(tag);
    // Descriptions are for users: no internal issue numbers.
    expect(`${operation['summary']} ${operation['description']}`).not.toMatch(/#\d+|\bissue\b/i);
  });

  it.each(operations)('%s shows a request example that its request schema accepts', (_label, operation) => {
    const documented = OPERATIONS[operation['operationId']]!;
    const body = operation['requestBody'] as Obj | undefined;
    if (body === undefined) {
      expect(documented.request).toBeUndefined();
      return;
    }
    const request = documented.request!;
    expect(request).toBeDefined();
    const contentType = request.contentType ?? 'application/json';
    const media = body['content'][contentType];
    expect(media['example']).toStrictEqual(request.example);
    expect(parses(request.schema, request.example)).toEqual([]);
    if (contentType === 'application/json') {
      const { name, schema } = component(media, requestSchemas);
      expect({ component: name, illustrated: schema === request.schema }).toEqual({ component: name, illustrated: true });
      expect(jsonSchemaErrors(name, request.example)).toEqual([]);
    }
  });

  it.each(operations)('%s shows a success response example that its response schema accepts', (_label, operation) => {
    const { response } = OPERATIONS[operation['operationId']]!;
    const contentType = response.contentType ?? 'application/json';
    const media = operation['responses'][response.status ?? '200']['content'][contentType];
    expect(media['example']).toStrictEqual(response.example);
    expect(parses(response.schema, response.example)).toEqual([]);
    if (media['schema']?.['$ref'] !== undefined) {
      const { name, schema } = component(media, responseSchemas);
      expect({ component: name, illustrated: schema === response.schema }).toEqual({ component: name, illustrated: true });
      expect(jsonSchemaErrors(name, response.example)).toEqual([]);
    }
  });

  it('the schemas checking the examples are not vacuous', () => {
    const reject = (id: string, which: 'request' | 'response', example: unknown) => {
      const body = OPERATIONS[id]![which]!;
      expect(body.schema.safeParse(example).success).toBe(false);
    };
    reject('postCommands', 'request', { commands: [{ op: 'UPSERT_EDGE', src: 'alice' }] });
    reject('getFacts', 'response', { cut: { validAt: '*', recordedAt: '2024-05-06T09:00:00Z' }, source: 'projection', facts: [] });
    reject('exportMemory', 'response', '{"op":"UPSERT_ENTITY","name":"Alice"}\n'); // no commandId, no recordedAt
    reject('importMemory', 'request', 'not json\n');
    reject('metrics', 'response', 'memotrace_up is one\n');
    reject('mcp', 'request', { jsonrpc: '1.0', method: 'tools/list' });
    reject('listMentions', 'response', { ...(OPERATIONS['listMentions']!.response.example as Obj), next: undefined });
  });
});

describe('the OpenAPI document as a whole', () => {
  it('says what MemoTrace is, its time model and how access works', () => {
    const description = doc.info.description as string;
    expect(description).toMatch(/bitemporal/i);
    expect(description).toMatch(/valid time/);
    expect(description).toMatch(/record time/);
    expect(description).toMatch(/Authorization: Bearer/);
    expect(JSON.stringify(doc)).not.toMatch(/#\d+|\bissue\b/i);
  });

  it('names its server relatively: the service that serves it', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('describes every tag, and uses each', () => {
    const used = new Set(Object.values(doc.paths as Obj).flatMap((item) => Object.values(item as Obj).flatMap((op: Obj) => op['tags'])));
    for (const tag of doc.tags as Obj[]) {
      expect(tag['description']).toEqual(expect.stringMatching(/\S/));
      expect(used).toContain(tag['name']);
    }
    expect((doc.tags as Obj[]).map((t) => t['name'])).toEqual(['commands', 'reads', 'search', 'audit', 'transfer', 'operations', 'mcp']);
  });

  it('asks for the bearer key where keys apply, and nowhere else', () => {
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, item] of Object.entries(doc.paths as Obj)) {
      for (const operation of Object.values(item as Obj) as Obj[]) {
        const guarded = path.startsWith('/v1/') || path === '/mcp';
        expect({ path, security: operation['security'] }).toEqual({ path, security: guarded ? [{ apiKey: [] }, {}] : undefined });
      }
    }
  });

  it('documents POST /mcp with its JSON-RPC body, answers and memory parameter', () => {
    const mcp = doc.paths['/mcp'].post;
    expect(mcp.requestBody.content['application/json'].schema).toEqual({ $ref: `${REF}McpRequest` });
    expect(Object.keys(mcp.responses).sort()).toEqual(['200', '202', '401']);
    expect(mcp.parameters).toEqual([expect.objectContaining({ name: 'memory', in: 'query', required: false })]);
  });
});
