import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { accessQuery } from '@memotrace/contracts';
import { HttpError, parseInput } from './http-error';

/**
 * Access control: API keys as bearer tokens, scoped to memories and to
 * read, write or admin (admin implies write, write implies read). Keys are stored hashed (sha256 hex of the
 * token); a presented token is hashed and compared to every key's hash in constant
 * time. The key's `id` is the principal recorded as `actor` on every command event.
 */

/** Access levels, each granting the ones before it: erasure (ERASE) and memory deletion need `admin`. */
export const ACCESS_LEVELS = ['read', 'write', 'admin'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** Whether a key of access `held` may do what needs `needed`. */
export function grants(held: Access, needed: Access): boolean {
  return ACCESS_LEVELS.indexOf(held) >= ACCESS_LEVELS.indexOf(needed);
}

/** The op of a command that only an admin key may send. */
export const ADMIN_OPS: ReadonlySet<string> = new Set(['ERASE']);

/** The access a batch of commands needs: admin when any command erases, else write. */
export function accessForCommands(commands: readonly { op: string }[]): Access {
  return commands.some((command) => ADMIN_OPS.has(command.op)) ? 'admin' : 'write';
}

export const apiKeySchema = z.strictObject({
  id: z.string().min(1).max(128),
  hash: z.string().regex(/^[0-9a-f]{64}$/i, 'must be the sha256 hex digest of the token (memotrace keys hash <token>)'),
  memories: z.array(z.string().min(1)).min(1),
  access: z.enum(ACCESS_LEVELS),
});
export type ApiKey = z.output<typeof apiKeySchema>;
export const apiKeysSchema = z.array(apiKeySchema);

/** The sha256 hex digest of a token: what the operator stores for a key. */
export function hashApiKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new random token (256 bits, base64url) with a recognisable prefix. */
export function newApiKeyToken(): string {
  return `mt_${randomBytes(32).toString('base64url')}`;
}

/**
 * The operator's keys from `MEMOTRACE_API_KEYS_FILE` (a JSON file) or
 * `MEMOTRACE_API_KEYS` (JSON): an array of `{id, hash, memories, access}`.
 * Throws a one-line error on a malformed configuration (refuse to start).
 */
export function loadApiKeys(env: NodeJS.ProcessEnv = process.env): ApiKey[] {
  const file = env['MEMOTRACE_API_KEYS_FILE']?.trim();
  const inline = env['MEMOTRACE_API_KEYS']?.trim();
  if (file && inline) throw new Error('set MEMOTRACE_API_KEYS_FILE or MEMOTRACE_API_KEYS, not both');
  let text: string;
  let where: string;
  if (file) {
    where = `MEMOTRACE_API_KEYS_FILE (${file})`;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(`cannot read ${where}: ${(error as Error).message}`);
    }
  } else if (inline) {
    where = 'MEMOTRACE_API_KEYS';
    text = inline;
  } else {
    return [];
  }
  return parseApiKeys(text, where);
}

export function parseApiKeys(text: string, where = 'API keys'): ApiKey[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${where} is not valid JSON`);
  }
  const parsed = apiKeysSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${where}: ${issue.path.join('.') || '(root)'} ${issue.message}`);
  }
  const ids = new Set<string>();
  for (const key of parsed.data) {
    if (ids.has(key.id)) throw new Error(`${where}: duplicate key id ${JSON.stringify(key.id)}`);
    ids.add(key.id);
  }
  return parsed.data.map((k) => ({ ...k, hash: k.hash.toLowerCase() }));
}

export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * With no keys configured the service may listen on loopback only: throws
 * otherwise. Returns the line to log about the mode.
 */
export function checkBindSafety(host: string, keys: readonly ApiKey[]): string {
  if (keys.length > 0) return `access control on: ${keys.length} API key(s) configured`;
  if (!isLoopbackHost(host)) {
    throw new Error(`refusing to listen on ${host} without API keys: set MEMOTRACE_API_KEYS_FILE or MEMOTRACE_API_KEYS, or HOST=127.0.0.1`);
  }
  return `no API keys configured: running UNAUTHENTICATED, listening on loopback (${host}) only`;
}

export interface Principal {
  id: string;
  /** The key's access level: what a route that decides on the body (an ERASE in a batch) checks. */
  access: Access;
}

/** Checks bearer tokens against the configured keys. */
export class AccessControl {
  private readonly keys: { key: ApiKey; digest: Buffer }[];
  constructor(keys: readonly ApiKey[]) {
    this.keys = keys.map((key) => ({ key, digest: Buffer.from(key.hash, 'hex') }));
  }

  get enabled(): boolean {
    return this.keys.length > 0;
  }

  /** The key whose hash matches `token`, comparing every key in constant time. */
  authenticate(token: string): ApiKey | undefined {
    const digest = createHash('sha256').update(token, 'utf8').digest();
    let found: ApiKey | undefined;
    for (const { key, digest: expected } of this.keys) {
      if (timingSafeEqual(digest, expected) && found === undefined) found = key;
    }
    return found;
  }

  /** The key of an `Authorization: Bearer <key>` header; throws 401 without a valid one. */
  authenticateBearer(authorization: string | undefined): ApiKey {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw new HttpError('UNAUTHORIZED', 'missing API key: send Authorization: Bearer <key>');
    const key = this.authenticate(match[1]!);
    if (!key) throw new HttpError('UNAUTHORIZED', 'invalid API key');
    return key;
  }

  /** Throws 401 (no/invalid key) or 403 (not scoped to the memory / a key below the access needed). */
  authorize(authorization: string | undefined, memoryId: string, access: Access): Principal {
    return this.permit(this.authenticateBearer(authorization), memoryId, access);
  }

  /** Throws 403 unless `key` is scoped to the memory with the access needed. */
  permit(key: ApiKey, memoryId: string, access: Access): Principal {
    if (!key.memories.includes('*') && !key.memories.includes(memoryId)) {
      throw new HttpError('FORBIDDEN', `key ${JSON.stringify(key.id)} has no access to this memory`);
    }
    const principal = { id: key.id, access: key.access };
    requireAccess(principal, access);
    return principal;
  }
}

/**
 * Throws 403 unless the principal's key grants `needed`; `what` names the operation in the message.
 * No principal (access control off) may do everything.
 */
export function requireAccess(principal: Principal | undefined, needed: Access, what?: string): void {
  if (principal === undefined || grants(principal.access, needed)) return;
  const key = `key ${JSON.stringify(principal.id)}`;
  if (needed === 'admin') {
    const doing = what ?? 'this operation';
    throw new HttpError('FORBIDDEN', `${key} has ${principal.access} access: ${doing} needs an admin key (access "admin"); nothing was written`);
  }
  throw new HttpError('FORBIDDEN', `${key} is read-only`);
}

const principals = new WeakMap<FastifyRequest, Principal>();

/** The authenticated principal of a request (undefined when access control is off). */
export function principalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}

/** The memories the key of a `/v1/...` request is scoped to (`*` = all), when access control is on. */
const readScopes = new WeakMap<FastifyRequest, readonly string[]>();

/** Whether the request may read `memoryId`: always when access control is off, else when its key is scoped to it. */
export function mayReadMemory(request: FastifyRequest, memoryId: string): boolean {
  const memories = readScopes.get(request);
  return memories === undefined || memories.includes('*') || memories.includes(memoryId);
}

/**
 * Routes about the key itself rather than a memory: any valid key may call them. `GET /v1/memories`
 * (SPEC §5.0) lists only the memories the key may read; `GET /v1/access` says what the key may do.
 */
const KEY_ROUTES: ReadonlySet<string> = new Set(['/v1/memories', '/v1/access']);

/** Routes that read even though they are POSTs. */
const READ_POSTS = /\/(search|check)$/;

/** The access a `/v1/...` request needs before its body is read: reads read, DELETE (of a whole memory) is admin, the rest writes. */
function routeAccess(method: string, path: string): Access {
  if (method === 'GET' || method === 'HEAD' || READ_POSTS.test(path)) return 'read';
  return method === 'DELETE' ? 'admin' : 'write';
}

/**
 * Enforces access control on every `/v1/...` route before its body is parsed
 * (so a refused request writes nothing). Health, readiness, metrics and docs stay open.
 */
export function registerAccessControl(app: FastifyInstance, access: AccessControl): void {
  if (!access.enabled) return;
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]!;
    if (!path.startsWith('/v1/')) return;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const memoryId = typeof params['memoryId'] === 'string' ? params['memoryId'] : '';
    const needed = routeAccess(request.method, path);
    const key = access.authenticateBearer(request.headers.authorization);
    readScopes.set(request, key.memories);
    // These name no memory: any valid key may ask, and learns only about itself and the memories it may read.
    const principal =
      needed === 'read' && KEY_ROUTES.has(request.routeOptions.url ?? '') ? { id: key.id, access: key.access } : access.permit(key, memoryId, needed);
    principals.set(request, principal);
  });
}

/**
 * `GET /v1/access`: what the request's key may do (its id, access level and memories), so a client offers
 * only that (the console hides erasure from keys below admin). Without keys, everything is allowed.
 */
export function registerAccessRoute(app: FastifyInstance): void {
  app.get('/v1/access', async (request) => {
    parseInput(accessQuery, request.query, 'query');
    const principal = principalOf(request);
    if (principal === undefined) return { accessControl: false, keyId: null, access: 'admin', memories: ['*'] };
    return { accessControl: true, keyId: principal.id, access: principal.access, memories: [...readScopes.get(request)!] };
  });
}
