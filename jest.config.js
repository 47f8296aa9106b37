// Tests are tiered by file name: *.unit.spec.ts (pure, no I/O) and *.int.spec.ts
// (real PostgreSQL via DATABASE_URL, real processes).
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.base.json');

const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.base.json' }] },
  moduleNameMapper: {
    ...pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' }),
    // d3's packages are ES modules; their UMD builds are what Jest, which runs CommonJS, can load.
    '^(d3-(?:force|dispatch|quadtree|timer))$': '<rootDir>/node_modules/$1/dist/$1.js',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

module.exports = {
  // Read at the top level only (a project's testTimeout is ignored).
  testTimeout: 60000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/**/*.unit.spec.ts'] },
    { ...shared, displayName: 'int', testMatch: ['<rootDir>/**/*.int.spec.ts'] },
  ],
};
