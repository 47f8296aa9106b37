import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { masterKeyFrom } from './master-key';

describe('masterKeyFrom', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'subject-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const key = randomBytes(32);

  it('MEMOTRACE_MASTER_KEY as base64, base64 without padding, base64url, or hex (either case), spaces trimmed', () => {
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY: key.toString('base64') }, undefined)).toEqual(key);
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY: key.toString('base64').replace(/=$/, '') }, undefined)).toEqual(key);
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY: key.toString('base64url') }, undefined)).toEqual(key);
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY: key.toString('hex') }, undefined)).toEqual(key);
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY: key.toString('hex').toUpperCase() }, undefined)).toEqual(key);
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY: ` ${key.toString('base64')}\n` }, undefined)).toEqual(key);
  });

  it('MEMOTRACE_MASTER_KEY of another length or form throws, naming the variable and the form but not the value', () => {
    const bad = [
      randomBytes(16).toString('base64'),
      randomBytes(33).toString('base64'),
      randomBytes(31).toString('hex'),
      key.toString('hex') + '0',
      'correct horse battery staple',
      key.toString('base64').replace(/^./, '!'),
    ];
    for (const value of bad) {
      let message = '';
      try {
        masterKeyFrom({ MEMOTRACE_MASTER_KEY: value }, dir);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^MEMOTRACE_MASTER_KEY must hold a master key of 32 bytes as base64 \(44 characters\) or hex \(64 characters\)/);
      expect(message).not.toContain(value);
    }
  });

  it('MEMOTRACE_MASTER_KEY wins over the key file and the data directory', () => {
    const file = join(dir, 'other.key');
    writeFileSync(file, randomBytes(32).toString('base64'));
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY: key.toString('hex'), MEMOTRACE_MASTER_KEY_FILE: file }, dir)).toEqual(key);
    expect(() => statSync(join(dir, 'master.key'))).toThrow();
  });

  it('MEMOTRACE_MASTER_KEY_FILE: a file holding the key (base64 or hex, with a newline); it wins over the data directory', () => {
    const file = join(dir, 'secret');
    writeFileSync(file, `${key.toString('base64')}\n`);
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY_FILE: file }, dir)).toEqual(key);
    writeFileSync(file, key.toString('hex'));
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY_FILE: file, MEMOTRACE_MASTER_KEY: '' }, undefined)).toEqual(key);
    expect(() => statSync(join(dir, 'master.key'))).toThrow();
  });

  it('MEMOTRACE_MASTER_KEY_FILE that is missing or holds something else throws, naming the variable', () => {
    expect(() => masterKeyFrom({ MEMOTRACE_MASTER_KEY_FILE: join(dir, 'absent') }, dir)).toThrow(/^MEMOTRACE_MASTER_KEY_FILE: cannot read .*absent/);
    const file = join(dir, 'short');
    writeFileSync(file, randomBytes(24).toString('base64'));
    expect(() => masterKeyFrom({ MEMOTRACE_MASTER_KEY_FILE: file }, dir)).toThrow(
      /^MEMOTRACE_MASTER_KEY_FILE \(.*short\) must hold a master key of 32 bytes as base64/,
    );
  });

  it('with a data directory: creates master.key (base64, mode 0600) once and reads the same key after', () => {
    const dataDir = join(dir, 'data');
    const first = masterKeyFrom({}, dataDir);
    expect(first).toHaveLength(32);
    const path = join(dataDir, 'master.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64')).toEqual(first);
    expect(masterKeyFrom({}, dataDir)).toEqual(first);
    expect(masterKeyFrom({}, join(dir, 'another'))).not.toEqual(first);
  });

  it('with a data directory: an existing master.key is used, and a damaged one throws naming its path', () => {
    writeFileSync(join(dir, 'master.key'), key.toString('hex'));
    expect(masterKeyFrom({}, dir)).toEqual(key);
    writeFileSync(join(dir, 'master.key'), 'not a key');
    expect(() => masterKeyFrom({}, dir)).toThrow(/master\.key must hold a master key of 32 bytes/);
  });

  it('no variable and no data directory: null', () => {
    expect(masterKeyFrom({}, undefined)).toBeNull();
    expect(masterKeyFrom({ MEMOTRACE_MASTER_KEY: '  ', MEMOTRACE_MASTER_KEY_FILE: '' }, undefined)).toBeNull();
  });
});
