import { type ErasureSubject, MemoTraceClient, MemoTraceError } from '@memotrace/client';
import { ACCESS_LEVELS, type Access, hashApiKey, newApiKeyToken } from '@memotrace/http-kit';
import { createMemoTraceMcpServer } from '@memotrace/mcp-service';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { REQUEST_LIMITS, parseCommandFile, planAtomicBatch, planBatches } from './command-file';
import { createProgress } from './progress';
import { parseTurnsFile } from './turns-file';
import { type WriteTally, describeTally, writeBatches } from './write-batches';
import { WriteFailure } from './write-failure';

/** `memotrace`: the CLI for humans and scripts. */

interface Globals {
  url: string;
  memory?: string;
  key?: string;
}

function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

const BATCH_LIMITS = `${REQUEST_LIMITS.commands} commands, ${REQUEST_LIMITS.bytes / (1024 * 1024)} MiB`;

function readInput(file: string | undefined): string {
  return readFileSync(file === undefined || file === '-' ? 0 : file, 'utf8');
}

function table(rows: Record<string, unknown>[], columns: string[]): string {
  const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

const REBUILD_PROJECTIONS = ['read-models', 'facts'];

/** Byte offsets (UTF-8) just past each non-blank line: a line counts as sent once these bytes are. */
export function commandLineEnds(jsonl: string): number[] {
  const ends: number[] = [];
  const total = Buffer.byteLength(jsonl, 'utf8');
  let offset = 0;
  for (const line of jsonl.split('\n')) {
    offset += Buffer.byteLength(line, 'utf8') + 1;
    if (line.trim() !== '') ends.push(Math.min(offset, total));
  }
  return ends;
}

export function buildProgram(): Command {
  const program = new Command('memotrace')
    .description(
      'MemoTrace command line: write, turns, reextract, gate, read, search, check, topics, consolidate, history, audit, export, ' +
        'import, erase, delete-memory, rebuild, mcp',
    )
    .option('--url <url>', 'service URL', process.env['MEMOTRACE_URL'] ?? 'http://127.0.0.1:8080')
    .option('--memory <memoryId>', 'memory id', process.env['MEMOTRACE_MEMORY'])
    .option('--key <apiKey>', 'API key (default: $MEMOTRACE_API_KEY)', process.env['MEMOTRACE_API_KEY'])
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError(false);

  const globals = (): Globals => program.opts<Globals>();
  const memory = () => {
    const g = globals();
    if (!g.memory) throw new Error('--memory <memoryId> is required');
    return new MemoTraceClient({ url: g.url, apiKey: g.key }).memory(g.memory);
  };

  program
    .command('write')
    .description(`apply JSONL commands from a file or stdin: every line is checked first, then sent in atomic batches of up to ${BATCH_LIMITS}`)
    .argument('[file]', 'JSONL file ("-" or absent: stdin)')
    .option('--atomic', `all or nothing: the whole file as one batch, refused unless it fits one batch (${BATCH_LIMITS})`)
    .option('--json', 'print every command result as JSON')
    .action(async (file: string | undefined, options: { atomic?: boolean; json?: boolean }) => {
      const commands = parseCommandFile(readInput(file));
      const batches = options.atomic ? planAtomicBatch(commands) : planBatches(commands);
      const m = memory();
      const progress = createProgress({ label: 'write', unit: 'commands' });
      let written: WriteTally | undefined;
      try {
        progress.update({ done: 0, total: commands.length });
        await writeBatches(m, batches, (results, tally) => {
          written = tally;
          if (options.json) for (const result of results) out(JSON.stringify(result));
          progress.update({ done: tally.commands, total: commands.length });
        });
      } catch (error) {
        progress.stop();
        // What was written before the failure, as a success would report it; stderr says the rest.
        if (written && !options.json) out(describeTally(written));
        throw error;
      }
      progress.stop();
      if (!options.json) out(written ? describeTally(written) : 'no commands in the input: nothing written');
    });

  program
    .command('turns')
    .description(
      'record dialog turns from a JSONL file or stdin, one {"sessionId", "turnId"?, "speaker", "text", "at"} per line: every line is ' +
        "checked first, then each session's consecutive turns go in one request (with extraction sync, one atomic batch with what is derived)",
    )
    .argument('[file]', 'JSONL file ("-" or absent: stdin)')
    .option('--extraction <mode>', 'sync (derive commands in the same batch), async, or off (turns only)', 'sync')
    .option('--recorded-at <instant>', 'record time of the turns and what is derived (default: the server clock)')
    .option('--json', 'print every response as JSON')
    .action(async (file: string | undefined, o: { extraction: string; recordedAt?: string; json?: boolean }) => {
      if (!['sync', 'async', 'off'].includes(o.extraction)) throw new Error('--extraction must be sync, async or off');
      const { requests, turns } = parseTurnsFile(readInput(file));
      const m = memory();
      let recorded = 0;
      let derived = 0;
      for (const request of requests) {
        const response = await m.turns({
          ...request,
          extraction: o.extraction as 'sync' | 'async' | 'off',
          ...(o.recordedAt === undefined ? {} : { recordedAt: o.recordedAt }),
        });
        if (o.json) out(JSON.stringify(response));
        recorded += response.results.filter((r) => r.status !== 'duplicate').length;
        derived += response.derived.filter((d) => d.status === 'applied').length;
      }
      if (!o.json) out(`${turns} turns sent, ${recorded} recorded (the rest were there already), ${derived} derived commands applied`);
    });

  program
    .command('reextract')
    .description(
      "derive again from the memory's recorded turns with the server's current extractor: async jobs, derived later; the same extractor " +
        "version derives nothing new, a new version's commands supersede the old ones",
    )
    .option('--session <id>', "only this session's turns (default: all sessions)")
    .option('--json', 'print the response as JSON')
    .action(async (o: { session?: string; json?: boolean }) => {
      const response = await memory().reextract(o.session === undefined ? {} : { sessionId: o.session });
      if (o.json) out(JSON.stringify(response));
      else out(`${response.jobs} extraction jobs queued for ${response.turns} turns (extractor ${response.extractor})`);
    });

  program
    .command('gate')
    .description(
      "the memory's extraction gate: the least confidence of a derived command appended. Without a value, prints it; with one " +
        "(0..1, or 'default' for the server's EXTRACTION_GATE), sets it with the logged command SET_EXTRACTION_GATE",
    )
    .argument('[value]', "a confidence in [0, 1], or 'default'")
    .option('--json', 'print the response as JSON')
    .action(async (value: string | undefined, o: { json?: boolean }) => {
      if (value !== undefined) {
        const gate = value === 'default' ? null : Number(value);
        if (gate !== null && (value.trim() === '' || !Number.isFinite(gate) || gate < 0 || gate > 1)) {
          throw new Error(`gate: expected a number in [0, 1] or 'default', got ${JSON.stringify(value)}`);
        }
        await memory().setExtractionGate(gate);
      }
      const settings = await memory().extraction();
      const whose = settings.memoryGate === null ? "the server's default" : `the memory's own; the server's default is ${settings.defaultGate}`;
      out(o.json ? JSON.stringify(settings) : `gate ${settings.gate} (${whose}), extractor ${settings.extractor}`);
    });

  program
    .command('read')
    .description('facts at a cut')
    .option('--valid-at <instant>', 'valid time, or * for any (default: now)')
    .option('--recorded-at <instant>', 'record time: what the memory believed then (default: now)')
    .option('--src <id>')
    .option('--rel <id>')
    .option('--dst <id>')
    .option('--replay', 'answer by exact replay of the log')
    .option('--json', 'print the response as JSON')
    .action(async (o: { validAt?: string; recordedAt?: string; src?: string; rel?: string; dst?: string; replay?: boolean; json?: boolean }) => {
      const response = await memory().facts({
        validAt: o.validAt,
        recordedAt: o.recordedAt,
        src: o.src,
        rel: o.rel,
        dst: o.dst,
        consistency: o.replay ? 'replay' : undefined,
      });
      if (o.json) return out(JSON.stringify(response));
      const rows = response.facts.map((f) => ({ ...f, dst: typeof f.dst === 'object' && f.dst !== null ? JSON.stringify(f.dst) : f.dst }));
      out(table(rows, ['factId', 'src', 'rel', 'dst', 'validFrom', 'validTo', 'recordedFrom']));
    });

  program
    .command('search')
    .description('ranked, auditable subgraph for a query')
    .argument('<query>')
    .option('--valid-at <instant>', "valid time (default: *, the whole timeline; the query's time words rank first)")
    .option('--recorded-at <instant>', 'record time: what the memory believed then (default: now)')
    .option('-k <k>', 'items per kind', (v) => Number(v))
    .option('--token-budget <n>', 'total token cap', (v) => Number(v))
    .option('--cold', 'search the cold tier too (items that cooled for lack of use)')
    .option('--json')
    .action(async (query: string, o: { validAt?: string; recordedAt?: string; k?: number; tokenBudget?: number; cold?: boolean; json?: boolean }) => {
      const { validAt, recordedAt, k, tokenBudget } = o;
      const response = await memory().search({ query, validAt, recordedAt, k, tokenBudget, ...(o.cold ? { tiers: ['hot', 'cold'] } : {}) });
      if (o.json) return out(JSON.stringify(response));
      out(table(response.items as unknown as Record<string, unknown>[], ['kind', 'id', 'score', 'salience', 'text']));
    });

  program
    .command('topics')
    .description('the durative topics of the memory: what went on over a period, with its window and members')
    .option('--valid-at <instant>', "only the topics whose window holds it (default: *, every topic's)")
    .option('--recorded-at <instant>', 'record time: what the memory believed then (default: now)')
    .option('--json', 'print the response as JSON')
    .action(async (o: { validAt?: string; recordedAt?: string; json?: boolean }) => {
      const response = await memory().topics({ validAt: o.validAt, recordedAt: o.recordedAt });
      if (o.json) return out(JSON.stringify(response));
      const rows = response.topics.map((t) => ({ ...t, to: t.window.to ?? 'open', from: t.window.from, members: t.members.length }));
      out(rows.length === 0 ? 'no topic' : table(rows, ['topicId', 'from', 'to', 'members', 'title']));
    });

  program
    .command('consolidate')
    .description("run the memory's evolution now: cooling and warming, episodes, topics; prints the merge suggestions")
    .option('--json', 'print the response as JSON')
    .action(async (o: { json?: boolean }) => {
      const response = await memory().consolidate();
      if (o.json) return out(JSON.stringify(response));
      const applied = response.appended.filter((a) => a.status === 'applied').length;
      out(`cooled ${response.cooled}, warmed ${response.warmed}, appended ${applied} of ${response.appended.length} derived commands`);
      if (response.mergeSuggestions.length > 0) {
        out(table(response.mergeSuggestions as unknown as Record<string, unknown>[], ['srcId', 'dstId', 'score', 'why']));
      }
    });

  program
    .command('check')
    .description("the verdict on each claim of a text (e.g. an agent's draft answer) at a cut, with the facts it rests on")
    .argument('<text>', 'e.g. "Alice works at Acme since Monday"')
    .option('--speaker <entity>', 'who "I" is in the text: an entity id or a name')
    .option('--valid-at <instant>', 'valid time the text is about (default: now)')
    .option('--recorded-at <instant>', 'record time: check against what the memory believed then (default: now)')
    .option('--replay', 'answer by exact replay of the log')
    .option('--json', 'print the response as JSON')
    .action(async (text: string, o: { speaker?: string; validAt?: string; recordedAt?: string; replay?: boolean; json?: boolean }) => {
      const response = await memory().check({
        text,
        speaker: o.speaker,
        validAt: o.validAt,
        recordedAt: o.recordedAt,
        consistency: o.replay ? 'replay' : undefined,
      });
      if (o.json) return out(JSON.stringify(response));
      const shown = (dst: unknown) => (typeof dst === 'object' && dst !== null ? JSON.stringify(dst) : String(dst));
      const rows = response.verdicts.map(({ claim, verdict, facts }) => ({
        verdict,
        claim: `${claim.src} ${claim.rel} ${shown(claim.dst)}${claim.validAt === undefined ? '' : ` @${claim.validAt}`}`,
        facts: facts.map((f) => f.factId).join(' '),
      }));
      out(rows.length === 0 ? 'no claim in the text' : table(rows, ['verdict', 'claim', 'facts']));
    });

  program
    .command('history')
    .description('every version of a fact')
    .argument('<factId>')
    .option('--json')
    .action(async (factId: string, o: { json?: boolean }) => {
      const response = await memory().history(factId);
      if (o.json) return out(JSON.stringify(response));
      out(table(response.versions as unknown as Record<string, unknown>[], ['validFrom', 'validTo', 'recordedFrom', 'recordedTo', 'dst']));
    });

  program
    .command('audit')
    .description('every event that touched a fact')
    .argument('<factId>')
    .option('--json')
    .action(async (factId: string, o: { json?: boolean }) => {
      const response = await memory().audit(factId);
      if (o.json) return out(JSON.stringify(response));
      out(table(response.events as unknown as Record<string, unknown>[], ['position', 'type', 'recordedAt', 'commandId', 'actor', 'reason']));
    });

  program
    .command('export')
    .description("the memory's log as JSONL on stdout")
    .action(async () => {
      process.stdout.write(await memory().export());
    });

  program
    .command('import')
    .description('replay an exported JSONL log (file or stdin) into an empty memory, atomically; progress on stderr')
    .argument('[file]')
    .action(async (file: string | undefined) => {
      const jsonl = readInput(file);
      const lineEnds = commandLineEnds(jsonl);
      const progress = createProgress({ label: 'import', unit: 'commands' });
      let sentLines = 0;
      progress.update({ done: 0, total: lineEnds.length, phase: 'uploading' });
      const response = await memory()
        .import(jsonl, {
          onUploadProgress: (sentBytes) => {
            while (sentLines < lineEnds.length && lineEnds[sentLines]! <= sentBytes) sentLines++;
            const uploaded = sentLines === lineEnds.length;
            // The server applies the whole log in one atomic write once it has it all.
            progress.update({
              done: sentLines,
              total: lineEnds.length,
              phase: uploaded ? 'applying on the server' : 'uploading',
              ...(uploaded ? { etaSeconds: null } : {}),
            });
          },
        })
        .finally(() => progress.stop());
      out(`${response.imported} commands imported, position ${response.position}`);
    });

  program
    .command('erase')
    .description(
      "erase the content of an entity, a fact, a mention or a document's mentions at every record time (ERASE; an admin key); " +
        'ids, times and the graph stay, the audit keeps the erasure and its reason',
    )
    .option('--entity <entityId>', 'an entity: its names, aliases and types, and the content of every fact and event naming it')
    .option('--fact <factId>', 'a fact: its literal value and source')
    .option('--mention <mentionId>', 'a mention: its text and speaker')
    .option('--doc <docId>', "a document (a conversation): every mention's text and speaker")
    .requiredOption('--reason <text>', 'why (kept in the audit with who and when)')
    .option('--json', 'print the command result as JSON')
    .action(async (o: { entity?: string; fact?: string; mention?: string; doc?: string; reason: string; json?: boolean }) => {
      const named: ErasureSubject[] = [
        ...(o.entity === undefined ? [] : [{ entityId: o.entity }]),
        ...(o.fact === undefined ? [] : [{ factId: o.fact }]),
        ...(o.mention === undefined ? [] : [{ mentionId: o.mention }]),
        ...(o.doc === undefined ? [] : [{ docId: o.doc }]),
      ];
      if (named.length !== 1) throw new Error('erase needs exactly one of --entity, --fact, --mention, --doc');
      const subject = named[0]!;
      const response = await memory().erase(subject, o.reason);
      const result = response.results[0]!;
      if (o.json) return out(JSON.stringify(result));
      const [kind, id] = Object.entries(subject)[0]!;
      out(`${kind.replace(/Id$/, '')} ${id}: ${result.status === 'applied' ? 'erased' : result.status}, position ${response.position}`);
    });

  program
    .command('delete-memory')
    .description('delete a memory entirely: its log, read models, search index and keys (an admin key); this cannot be undone')
    .argument('<memoryId>', 'the memory to delete')
    .option('--yes', 'confirm: without it nothing is deleted')
    .option('--json', 'print the response as JSON')
    .action(async (memoryId: string, o: { yes?: boolean; json?: boolean }) => {
      if (!o.yes) throw new Error(`delete-memory cannot be undone: repeat with --yes to delete memory ${memoryId}`);
      const g = globals();
      const response = await new MemoTraceClient({ url: g.url, apiKey: g.key }).deleteMemory(memoryId);
      if (o.json) return out(JSON.stringify(response));
      out(`memory ${response.memoryId} deleted (${response.records} log records)`);
    });

  program
    .command('rebuild')
    .description(
      'rebuild a projection from the log, blue/green (admin: a key for all memories); --to T: a frozen snapshot at record time T; progress on stderr',
    )
    .option('--projection <name>', 'read-models (facts are in read-models)', 'read-models')
    .option('--to <instant>', 'apply only events recorded at or before this instant, into a snapshot schema that is not switched in')
    .option('--poll <ms>', 'status polling interval', (v) => Number(v), 250)
    .option('--json', 'print the final status as JSON')
    .action(async (o: { projection: string; to?: string; poll: number; json?: boolean }) => {
      if (!REBUILD_PROJECTIONS.includes(o.projection))
        throw new Error(`unknown projection ${o.projection} (known: ${REBUILD_PROJECTIONS.join(', ')})`);
      const g = globals();
      const client = new MemoTraceClient({ url: g.url, apiKey: g.key });
      const { started, status: first } = await client.startRebuild(o.to === undefined ? {} : { to: o.to });
      if (!started)
        throw new Error(`a rebuild started at ${first.startedAt} is already running (to ${first.to ?? 'the head'}); see GET /v1/admin/rebuild`);
      const progress = createProgress({ label: 'rebuild', unit: 'events' });
      let status = first;
      try {
        while (status.state === 'running') {
          if (status.progress)
            progress.update({
              done: status.progress.done,
              total: status.progress.total,
              rate: status.progress.eventsPerSecond,
              etaSeconds: status.progress.etaSeconds,
              phase: status.progress.phase,
            });
          await new Promise((r) => setTimeout(r, o.poll));
          status = await client.rebuildStatus();
        }
        if (status.progress)
          progress.update({
            done: status.progress.done,
            total: status.progress.total,
            rate: status.progress.eventsPerSecond,
            etaSeconds: 0,
            phase: status.progress.phase,
          });
      } finally {
        progress.stop();
      }
      if (status.state !== 'done' || !status.result) throw new Error(`rebuild failed: ${status.error ?? status.state}`);
      if (o.json) return out(JSON.stringify(status));
      const r = status.result;
      out(
        `${r.mode === 'switched' ? 'switched to' : 'snapshot'} ${r.schema}: ${r.applied} events applied, position ${r.position}, ` +
          `${r.eventsPerSecond} events/s, ${(r.elapsedMs / 1000).toFixed(1)} s`,
      );
    });

  program
    .command('mcp')
    .description('serve the memory as MCP tools on stdio, for agent frameworks (--memory: the default memory)')
    .option('--erase', 'also offer the erase tool (for an admin key: the service refuses it to any other)')
    .action(async (o: { erase?: boolean }) => {
      const g = globals();
      const server = createMemoTraceMcpServer({
        client: new MemoTraceClient({ url: g.url, apiKey: g.key }),
        erase: o.erase === true,
        ...(g.memory ? { defaultMemory: g.memory } : {}),
      });
      // Serves until stdin ends and the calls in flight are answered (the event loop drains).
      await server.connect(new StdioServerTransport());
    });

  const keys = program.command('keys').description('API keys for MEMOTRACE_API_KEYS(_FILE)');
  keys
    .command('hash')
    .description('the sha256 hex digest to store for a token')
    .argument('<token>')
    .action((token: string) => out(hashApiKey(token)));
  keys
    .command('new')
    .description('a new random token and a key entry to configure')
    .requiredOption('--id <principal>')
    .option('--memories <ids>', 'comma-separated memory ids, or *', '*')
    .option('--access <access>', `${ACCESS_LEVELS.join(', ')} (admin: also erase and delete memories)`, 'write')
    .action((o: { id: string; memories: string; access: string }) => {
      if (!(ACCESS_LEVELS as readonly string[]).includes(o.access)) throw new Error(`--access must be one of ${ACCESS_LEVELS.join(', ')}`);
      const access = o.access as Access;
      const token = newApiKeyToken();
      out(JSON.stringify({ token, key: { id: o.id, hash: hashApiKey(token), memories: o.memories.split(','), access } }));
    });

  return program;
}

/** Runs the CLI; returns the exit code. Errors are one line on stderr. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2; // commander already printed it
    if (error instanceof WriteFailure) {
      process.stderr.write(`memotrace: ${error.message}\n`);
      return error.exitCode;
    }
    const message =
      error instanceof MemoTraceError
        ? `${error.status === 0 ? error.code : `${error.code} (HTTP ${error.status})`}: ${error.message}${detailsOf(error)}`
        : (error as Error).message;
    process.stderr.write(`memotrace: ${message}\n`);
    return 1;
  }
}

function detailsOf(error: MemoTraceError): string {
  if (!error.details || error.details.length === 0) return '';
  const first = error.details[0]!;
  return ` (${first.path || 'body'}: ${first.message}${error.details.length > 1 ? `; ${error.details.length - 1} more` : ''})`;
}
