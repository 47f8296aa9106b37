import { createHash } from 'node:crypto';
import { type Item, getTextAtPath } from '@langchain/langgraph-checkpoint';
import type { FactVersion, WireCommandInput } from '@memotrace/client';

/**
 * How a LangGraph store item lives in MemoTrace. A fact's src, rel and dst never change (SPEC 3.1), so the
 * item is the fact `(item entity) -langgraph_item-> "key"`, whose id derives from namespace and key: every
 * put that changes the value is a new version of that one fact (its history and audit are the item's), a
 * delete archives it. The value rides in the version's `source` as `{namespace, key, value}`, which makes a
 * version readable on its own. The value's indexed text is recorded as a mention, the version's evidence:
 * that is how MemoTrace search finds the item by its value.
 *
 * Each item has its own entity and each text its own document because MemoTrace search also returns the
 * neighbours of its hits (facts naming the same entity, the mentions next to a hit in its document): with
 * a shared namespace entity a hit would bring in the namespace's other items, and with one document per
 * item a text the item no longer holds would bring in its current one.
 */

export const ITEM_RELATION = 'langgraph_item';
export const ITEM_TYPE = 'langgraph_item';

/** The stored form of an item, in each version's `source`. */
interface StoredItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
}

/** An item as a cut of the memory holds it: the LangGraph item, and the ids search hits name. */
export interface ItemAtCut {
  item: Item;
  factId: string;
  /** The mention holding its indexed text; none when the put indexed nothing. */
  textId: string | undefined;
}

function digest(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

export function itemEntityId(namespace: readonly string[], key: string): string {
  return `lg-item-${digest([namespace, key])}`;
}

export function itemFactId(namespace: readonly string[], key: string): string {
  return `lg-fact-${digest([namespace, key])}`;
}

function textMentionId(factId: string, text: string): string {
  return `lg-text-${digest([factId, text])}`;
}

/**
 * The text MemoTrace search indexes for a value: each field's text (LangGraph paths; `$` is the whole value
 * as JSON) on its own line, or nothing when `fields` is false.
 */
export function indexedText(value: Record<string, unknown>, fields: readonly string[] | false): string {
  if (fields === false) return '';
  return fields
    .flatMap((field) => (field === '$' ? [JSON.stringify(value)] : getTextAtPath(value, field)))
    .filter((text) => text.trim() !== '')
    .join('\n');
}

/**
 * The commands of one put. The item entity and the text mention carry command ids derived from their own
 * ids: sent again, they are duplicates and write nothing, so a put that only changes the value writes one
 * new log record (two when the indexed text changes too).
 */
export function putCommands(namespace: string[], key: string, value: Record<string, unknown>, fields: readonly string[] | false): WireCommandInput[] {
  const entityId = itemEntityId(namespace, key);
  const factId = itemFactId(namespace, key);
  const text = indexedText(value, fields);
  const mentionId = text === '' ? undefined : textMentionId(factId, text);
  const stored: StoredItem = { namespace, key, value };
  return [
    { op: 'UPSERT_ENTITY', commandId: `upsert-${entityId}`, entityId, name: [...namespace, key].join('/'), types: [ITEM_TYPE] },
    ...(mentionId === undefined ? [] : [{ op: 'RECORD_MENTION' as const, commandId: `record-${mentionId}`, mentionId, docId: mentionId, text }]),
    {
      op: 'UPSERT_EDGE',
      factId,
      src: entityId,
      rel: ITEM_RELATION,
      dst: { literal: key, datatype: 'string' },
      // Both always given: left out, they would be kept from the open version.
      evidence: mentionId === undefined ? [] : [mentionId],
      source: JSON.stringify(stored),
    },
  ];
}

/**
 * The item a fact version holds: createdAt is the version's validFrom (a put keeps the open version's, a put
 * after a delete starts a new one at its record time), updatedAt its recordedFrom (when this value was
 * recorded). Undefined for a fact that is not a store item's (another writer's fact with the same relation).
 */
export function itemOfVersion(version: FactVersion): ItemAtCut | undefined {
  const stored = parseStored(version.source);
  if (stored === undefined || version.factId !== itemFactId(stored.namespace, stored.key)) return undefined;
  return {
    item: {
      namespace: stored.namespace,
      key: stored.key,
      value: stored.value,
      createdAt: new Date(version.validFrom),
      updatedAt: new Date(version.recordedFrom),
    },
    factId: version.factId,
    textId: version.evidence[0],
  };
}

function parseStored(source: string | null): StoredItem | undefined {
  if (source === null) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { namespace, key, value } = parsed as Partial<Record<keyof StoredItem, unknown>>;
  const isNamespace = Array.isArray(namespace) && namespace.every((label) => typeof label === 'string');
  const isValue = typeof value === 'object' && value !== null && !Array.isArray(value);
  return isNamespace && typeof key === 'string' && isValue ? { namespace, key, value: value as Record<string, unknown> } : undefined;
}
