import {
  AccessControl,
  accessForCommands,
  checkBindSafety,
  grants,
  hashApiKey,
  isLoopbackHost,
  loadApiKeys,
  newApiKeyToken,
  parseApiKeys,
  requireAccess,
} from './auth';
import { HttpError } from './http-error';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const token = 'mt_secret-a';
const keys = parseApiKeys(
  JSON.stringify([
    { id: 'agent-a', hash: hashApiKey(token), memories: ['a'], access: 'write' },
    { id: 'reader', hash: hashApiKey('mt_reader'), memories: ['*'], access: 'read' },
    { id: 'dpo', hash: hashApiKey('mt_admin'), memories: ['a'], access: 'admin' },
  ]),
);

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (error) {
    return (error as HttpError).code;
  }
}

describe('access control', () => {
  const access = new AccessControl(keys);

  it('hashes tokens as sha256 hex and makes distinct random tokens', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(newApiKeyToken()).not.toBe(newApiKeyToken());
  });

  it('authorizes by key, memory and access', () => {
    expect(access.authorize(`Bearer ${token}`, 'a', 'write')).toEqual({ id: 'agent-a', access: 'write' });
    expect(access.authorize(`bearer ${token}`, 'a', 'read')).toEqual({ id: 'agent-a', access: 'write' });
    expect(codeOf(() => access.authorize(`Bearer ${token}`, 'b', 'read'))).toBe('FORBIDDEN');
    expect(access.authorize('Bearer mt_reader', 'anything', 'read')).toEqual({ id: 'reader', access: 'read' });
    expect(codeOf(() => access.authorize('Bearer mt_reader', 'a', 'write'))).toBe('FORBIDDEN');
    expect(codeOf(() => access.authorize(undefined, 'a', 'read'))).toBe('UNAUTHORIZED');
    expect(codeOf(() => access.authorize('Basic abc', 'a', 'read'))).toBe('UNAUTHORIZED');
    expect(codeOf(() => access.authorize('Bearer wrong', 'a', 'read'))).toBe('UNAUTHORIZED');
  });

  it('admin implies write implies read; only an admin key may erase or delete', () => {
    expect(grants('admin', 'write')).toBe(true);
    expect(grants('admin', 'read')).toBe(true);
    expect(grants('write', 'admin')).toBe(false);
    expect(grants('read', 'write')).toBe(false);
    expect(access.authorize('Bearer mt_admin', 'a', 'admin')).toEqual({ id: 'dpo', access: 'admin' });
    expect(access.authorize('Bearer mt_admin', 'a', 'write')).toEqual({ id: 'dpo', access: 'admin' });
    expect(codeOf(() => access.authorize('Bearer mt_admin', 'b', 'read'))).toBe('FORBIDDEN');
    expect(codeOf(() => access.authorize(`Bearer ${token}`, 'a', 'admin'))).toBe('FORBIDDEN');
    expect(codeOf(() => access.authorize('Bearer mt_reader', 'a', 'admin'))).toBe('FORBIDDEN');
    expect(() => requireAccess({ id: 'agent-a', access: 'write' }, 'admin', 'ERASE')).toThrow(/ERASE needs an admin key/);
    expect(() => requireAccess(undefined, 'admin')).not.toThrow();
    expect(accessForCommands([{ op: 'UPSERT_ENTITY' }, { op: 'ERASE' }])).toBe('admin');
    expect(accessForCommands([{ op: 'UPSERT_ENTITY' }])).toBe('write');
    expect(() => parseApiKeys(JSON.stringify([{ id: 'x', hash: hashApiKey('t'), memories: ['*'], access: 'root' }]))).toThrow(/access/);
  });

  it('loads keys from a file or the environment and refuses bad configurations', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keys-'));
    const file = join(dir, 'keys.json');
    writeFileSync(file, JSON.stringify(keys));
    expect(loadApiKeys({ MEMOTRACE_API_KEYS_FILE: file })).toEqual(keys);
    expect(loadApiKeys({ MEMOTRACE_API_KEYS: JSON.stringify(keys) })).toEqual(keys);
    expect(loadApiKeys({})).toEqual([]);
    expect(() => loadApiKeys({ MEMOTRACE_API_KEYS: '{' })).toThrow(/not valid JSON/);
    expect(() => loadApiKeys({ MEMOTRACE_API_KEYS: JSON.stringify([{ id: 'x', hash: 'plain', memories: ['*'], access: 'read' }]) })).toThrow(
      /sha256/,
    );
    expect(() => loadApiKeys({ MEMOTRACE_API_KEYS: JSON.stringify([keys[0], keys[0]]) })).toThrow(/duplicate/);
    expect(() => loadApiKeys({ MEMOTRACE_API_KEYS_FILE: join(dir, 'missing.json') })).toThrow(/cannot read/);
  });

  it('without keys, listens on loopback only', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('::1')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
    expect(checkBindSafety('127.0.0.1', [])).toMatch(/UNAUTHENTICATED/);
    expect(() => checkBindSafety('0.0.0.0', [])).toThrow(/refusing to listen on 0.0.0.0 without API keys/);
    expect(checkBindSafety('0.0.0.0', keys)).toMatch(/3 API key/);
  });
});
