import pg from 'pg';

/**
 * The raw SQL side: the fact versions the service projected, copied into ONE plain
 * table in the service's own database (same PostgreSQL, same settings, same run),
 * with one GiST index that serves the entity-scoped cut. Written by multi-row
 * INSERTs of `batchRows` rows from one connection, the index in place while they run
 * (as the service's indexes are while it projects).
 */
export const RAW_TABLE = 'bench_raw_versions';

export interface RawLoad {
  rows: number;
  /** Sum of the INSERT round trips alone (reading the rows to copy is not counted). */
  seconds: number;
  batches: number;
  /** What indexes the table, in words, for the report. */
  index: string;
  bytes: number;
}

const FETCH_ROWS = 20_000;
const COLUMNS = 11;

export async function loadRawBaseline(databaseUrl: string, memoryId: string, batchRows: number): Promise<RawLoad> {
  const writer = new pg.Client({ connectionString: databaseUrl });
  const reader = new pg.Client({ connectionString: databaseUrl });
  await writer.connect();
  await reader.connect();
  try {
    await writer.query(`DROP TABLE IF EXISTS ${RAW_TABLE}`);
    await writer.query(`CREATE TABLE ${RAW_TABLE} (
        memory_id text COLLATE "C" NOT NULL,
        fact_id text COLLATE "C" NOT NULL,
        version_no integer NOT NULL,
        src text COLLATE "C" NOT NULL,
        rel text COLLATE "C" NOT NULL,
        dst text NOT NULL,
        confidence double precision NULL,
        valid tstzrange NOT NULL,
        recorded tstzrange NOT NULL)`);
    const index = await createCutIndex(writer);

    // In record order, as the service wrote them; a cursor keeps a large memory out of this process's heap.
    await reader.query('BEGIN READ ONLY');
    await reader.query(`DECLARE raw_source NO SCROLL CURSOR FOR
        SELECT fact_id, version_no, src, rel, coalesce(dst_entity, dst_text) AS dst, confidence,
               valid_from::text AS valid_from, valid_to::text AS valid_to, recorded_from::text AS recorded_from, recorded_to::text AS recorded_to
          FROM rm_fact_versions WHERE memory_id = ${reader.escapeLiteral(memoryId)}
         ORDER BY recorded_from, fact_id, version_no`);
    let rows = 0;
    let batches = 0;
    let ms = 0;
    for (;;) {
      const chunk = await reader.query<SourceRow>(`FETCH ${FETCH_ROWS} FROM raw_source`);
      if (chunk.rows.length === 0) break;
      for (let i = 0; i < chunk.rows.length; i += batchRows) {
        const { text, values } = insertStatement(memoryId, chunk.rows.slice(i, i + batchRows));
        const t0 = performance.now();
        await writer.query(text, values);
        ms += performance.now() - t0;
        batches += 1;
      }
      rows += chunk.rows.length;
    }
    await reader.query('COMMIT');
    await writer.query(`ANALYZE ${RAW_TABLE}`);
    const { rows: size } = await writer.query<{ bytes: string }>(`SELECT pg_total_relation_size('${RAW_TABLE}') AS bytes`);
    return { rows, seconds: ms / 1000, batches, index, bytes: Number(size[0]!.bytes) };
  } finally {
    await reader.end();
    await writer.end();
  }
}

interface SourceRow {
  fact_id: string;
  version_no: number;
  src: string;
  rel: string;
  dst: string;
  confidence: number | null;
  valid_from: string;
  valid_to: string | null;
  recorded_from: string;
  recorded_to: string | null;
}

/** One composite GiST index when btree_gist is there (it lets GiST index the text columns), else GiST on the ranges plus a btree. */
async function createCutIndex(client: pg.Client): Promise<string> {
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS btree_gist');
    await client.query(`CREATE INDEX ${RAW_TABLE}_cut ON ${RAW_TABLE} USING gist (memory_id, src, valid, recorded)`);
    return 'one GiST index (memory_id, src, valid, recorded), btree_gist';
  } catch {
    await client.query(`CREATE INDEX ${RAW_TABLE}_ranges ON ${RAW_TABLE} USING gist (valid, recorded)`);
    await client.query(`CREATE INDEX ${RAW_TABLE}_src ON ${RAW_TABLE} (memory_id, src)`);
    return 'GiST (valid, recorded) and btree (memory_id, src): btree_gist is not available';
  }
}

function insertStatement(memoryId: string, rows: readonly SourceRow[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const tuples = rows.map((row, r) => {
    values.push(
      memoryId,
      row.fact_id,
      row.version_no,
      row.src,
      row.rel,
      row.dst,
      row.confidence,
      row.valid_from,
      row.valid_to,
      row.recorded_from,
      row.recorded_to,
    );
    const p = (column: number) => `$${r * COLUMNS + column}`;
    return (
      `(${p(1)}, ${p(2)}, ${p(3)}::integer, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}::double precision, ` +
      `tstzrange(${p(8)}::timestamptz, ${p(9)}::timestamptz, '[)'), tstzrange(${p(10)}::timestamptz, ${p(11)}::timestamptz, '[)'))`
    );
  });
  return { text: `INSERT INTO ${RAW_TABLE} VALUES ${tuples.join(', ')}`, values };
}

/** A fact version as both sides report it: enough to tell two answers apart. */
export interface CutFact {
  factId: string;
  validFrom: string;
  validTo: string | null;
  recordedFrom: string;
}

/**
 * The As-World entity cut in SQL, as a named (prepared) statement on one connection:
 * versions of `src` valid at `validAt` and believed now.
 */
export class RawCuts {
  private readonly client: pg.Client;

  constructor(databaseUrl: string) {
    this.client = new pg.Client({ connectionString: databaseUrl });
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  async cut(memoryId: string, src: string, validAt: string): Promise<{ ms: number; facts: CutFact[] }> {
    const t0 = performance.now();
    const { rows } = await this.client.query<{ fact_id: string; valid_from: Date; valid_to: Date | null; recorded_from: Date }>({
      name: 'bench-raw-cut',
      text: `SELECT fact_id, version_no, src, rel, dst, confidence,
                    lower(valid) AS valid_from, upper(valid) AS valid_to, lower(recorded) AS recorded_from, upper(recorded) AS recorded_to
               FROM ${RAW_TABLE}
              WHERE memory_id = $1 AND src = $2 AND valid @> $3::timestamptz AND recorded @> now()`,
      values: [memoryId, src, validAt],
    });
    const ms = performance.now() - t0;
    return {
      ms,
      facts: rows.map((r) => ({
        factId: r.fact_id,
        validFrom: r.valid_from.toISOString(),
        validTo: r.valid_to?.toISOString() ?? null,
        recordedFrom: r.recorded_from.toISOString(),
      })),
    };
  }

  end(): Promise<void> {
    return this.client.end();
  }
}

/** The same versions, whatever order each side lists them in. */
export function sameVersions(a: readonly CutFact[], b: readonly CutFact[]): boolean {
  const key = (f: CutFact) => `${f.factId}|${f.validFrom}|${f.validTo}|${f.recordedFrom}`;
  const left = a.map(key).sort();
  const right = b.map(key).sort();
  return left.length === right.length && left.every((k, i) => k === right[i]);
}
