import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type BuildResult, build } from 'esbuild';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where the browser code is: bundled from source when the process starts, never committed as a bundle. */
export const CLIENT_ENTRY = join(__dirname, 'client', 'main.tsx');

/** The path the bundle's files are served under (`/console/assets/main-HASH.js`, its CSS, the lazily loaded chunks). */
const ASSETS = '/console/assets/';

export interface ConsoleBundle {
  /** File name (`main-HASH.js`, `main-HASH.css`, `chunk-HASH.js`) -> its bytes and content type. */
  files: Map<string, { body: Buffer; type: string }>;
  /** The page every console route answers: it names the entry's script and style by their hashed names. */
  indexHtml: string;
  /** How long esbuild took, in milliseconds. */
  buildMs: number;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/**
 * Bundles the console in memory: Preact, the pages and the graph layout in `main-HASH.js` (a page that
 * imports a module lazily gets it as a `chunk-HASH.js`). Every file's name carries its content's hash,
 * so browsers keep them for good and never ask again.
 */
export async function buildConsole(): Promise<ConsoleBundle> {
  const started = performance.now();
  const result: BuildResult<{ write: false }> = await build({
    entryPoints: { main: CLIENT_ENTRY },
    bundle: true,
    write: false,
    splitting: true,
    format: 'esm',
    outdir: '/console-assets',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    minify: true,
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'silent',
  });
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const file of result.outputFiles) {
    const name = file.path.slice(file.path.lastIndexOf('/') + 1);
    files.set(name, { body: Buffer.from(file.contents), type: TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream' });
  }
  const entry = (extension: string) => {
    const name = [...files.keys()].find((n) => n.startsWith('main-') && n.endsWith(extension));
    if (name === undefined) throw new Error(`the console bundle has no main ${extension} file`);
    return ASSETS + name;
  };
  return { files, indexHtml: indexHtml(entry('.js'), entry('.css')), buildMs: performance.now() - started };
}

/** One bundle per process: the first registration builds it, later ones (tests start many apps) reuse it. */
let bundle: Promise<ConsoleBundle> | undefined;

export function consoleBundle(): Promise<ConsoleBundle> {
  if (bundle === undefined) {
    const building = buildConsole();
    // A failed build is not kept: the next request tries again.
    building.catch(() => {
      if (bundle === building) bundle = undefined;
    });
    bundle = building;
  }
  return bundle;
}

const indexHtml = (script: string, style: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MemoTrace console</title>
<link rel="stylesheet" href="${style}">
<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"><noscript>The MemoTrace console needs JavaScript.</noscript></div>
</body>
</html>
`;

/**
 * The page's scripts and styles come from this origin only, and it talks to this origin only
 * (the public API); inline styles stay allowed for the SVG drawings' attributes.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function page(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff');
}

/**
 * The web console at `/console`: one HTML page for every client-side route (`/console/memories/...`),
 * its bundle under `/console/assets/`. The page holds no data and needs no key; everything it shows it
 * reads through the public API (`/v1/...`) with the key the user pastes, so access control stays the API's.
 * The bundle is built in memory and is ready when this resolves: the service opens its port after it, so a
 * signal to the process group (Ctrl-C) never stops esbuild's own process in the middle of a build.
 */
export async function registerConsole(app: FastifyInstance): Promise<void> {
  try {
    const { buildMs, files } = await consoleBundle();
    const bytes = [...files.values()].reduce((sum, f) => sum + f.body.length, 0);
    app.log.info({ buildMs: Math.round(buildMs), bytes }, 'console bundle built');
  } catch (error) {
    // The API serves on without its console; the next console request builds again.
    app.log.error({ err: error }, 'console bundle failed to build');
  }
  app.get('/console', async (_request, reply) => page(reply).send((await consoleBundle()).indexHtml));
  app.get('/console/*', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const { files, indexHtml: html } = await consoleBundle();
    if (!path.startsWith(ASSETS)) return page(reply).send(html);
    const file = files.get(path.slice(ASSETS.length));
    if (file === undefined) return reply.status(404).send({ error: { code: 'NOT_FOUND', message: `no console asset ${path}` } });
    // Every asset's name carries its content hash: a new build has new names, so an old copy is never stale.
    return reply
      .header('content-type', file.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(file.body);
  });
}
