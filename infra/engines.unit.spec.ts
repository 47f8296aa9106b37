import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

/**
 * `npm install` on the oldest Node the project names installs nothing that asks for a newer one
 * (npm only warns, EBADENGINE, and the package may then fail at run time): every package the
 * lockfile holds accepts the root `engines.node` minimum, and the Node running the tests is within it.
 */
const ROOT = join(__dirname, '..');
const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

describe('Node version', () => {
  const oldest = semver.minVersion(root.engines.node)!;

  it('the Node running the tests is one the project names', () => {
    expect(semver.satisfies(process.version, root.engines.node)).toBe(true);
  });

  it(`every locked package accepts Node ${oldest.version}, the oldest the project names`, () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path, meta]) => path !== '' && !Array.isArray(meta.engines) && meta.engines?.node !== undefined)
      .filter(([, meta]) => !semver.satisfies(oldest, (meta.engines as { node: string }).node, { includePrerelease: true }))
      .map(([path, meta]) => `${path} needs node ${(meta.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});
