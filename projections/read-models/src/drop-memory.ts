import type { PoolClient } from 'pg';

/**
 * Every table of read models that holds a memory's rows, in every schema that has them: the live
 * one, and a rebuild's build, snapshot or retired schema (copies of the memory too). Found in the
 * catalog, so a table added later is covered without a list to keep in step. `rm_checkpoints` has
 * no memory_id: positions are global.
 */
const MEMORY_TABLES = `
  SELECT c.table_schema, c.table_name
  FROM information_schema.columns c
  JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
  WHERE c.column_name = 'memory_id' AND c.table_name LIKE 'rm\\_%'
  ORDER BY c.table_schema, c.table_name`;

/**
 * Deletes every read-model row of the memory in the caller's transaction; returns how many rows
 * went. A version chain's foreign key only points within the memory, so each table's rows go in
 * one statement.
 */
export async function dropMemoryReadModels(client: Pick<PoolClient, 'query' | 'escapeIdentifier'>, memoryId: string): Promise<number> {
  const { rows: tables } = await client.query<{ table_schema: string; table_name: string }>(MEMORY_TABLES);
  let deleted = 0;
  for (const { table_schema, table_name } of tables) {
    const table = `${client.escapeIdentifier(table_schema)}.${client.escapeIdentifier(table_name)}`;
    deleted += (await client.query(`DELETE FROM ${table} WHERE memory_id = $1`, [memoryId])).rowCount ?? 0;
  }
  return deleted;
}
