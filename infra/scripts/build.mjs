// `npm run build` (and npm's `prestart`): the all-in-one service compiled to one JavaScript file,
// dist/memotrace/main.js, so `npm start` runs plain Node, not a TypeScript loader. Packages stay in
// node_modules; the project's own modules (the tsconfig paths) are bundled. A module that finds files
// beside its source (workers, the console's client, the docs) keeps its own `__dirname`.
import * as esbuild from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

// A path, not a URL's pathname: a directory with a space in its name stays one.
const root = fileURLToPath(new URL('../..', import.meta.url));

const ownDirname = {
  name: 'own-dirname',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('__dirname')) return undefined;
      return { contents: text.replaceAll('__dirname', JSON.stringify(dirname(args.path))), loader: 'ts' };
    });
  },
};

await esbuild.build({
  absWorkingDir: root,
  entryPoints: { 'memotrace/main': 'services/memotrace/src/main.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  tsconfig: 'tsconfig.base.json',
  sourcemap: true,
  plugins: [ownDirname],
  logLevel: 'warning',
});
