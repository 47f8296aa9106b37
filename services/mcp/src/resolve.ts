import { type MemoryClient, MemoTraceError } from '@memotrace/client';
import { type EntityResponse, id, type WireCommandInput } from '@memotrace/contracts';
import { deriveEntityId, normaliseName } from '@memotrace/domain';

/**
 * Entity references by name or id, the MCP tools' rule (stated to the model in descriptions.ts): a value
 * that is an entity id is used as it is; otherwise it is looked up by name and alias
 * (`GET .../entities?name=`, case-insensitive): one match is that entity; several are a tool error listing
 * them; none is created when the call says `createMissing` (UPSERT_ENTITY with that name, in the same
 * atomic write, with the id the service derives from the name, so a retried call names the same entity),
 * else a tool error saying how to go on. Entities a batch declares (its UPSERT_ENTITY commands) count as
 * existing for the commands after them.
 */

/** A tool error the model can act on: its message is the tool result's text. */
export class ToolError extends Error {}

/** How one reference was resolved, returned to the model with the tool's result. */
export type Resolution =
  { field: string; value: string; entityId: string; by: 'id' | 'name' | 'created' } | { field: string; value: string; literal: string };

/** One entity reference of a call. */
export interface Reference {
  /** Where it stands in the call, for messages: `src`, `commands[2].dst`. */
  field: string;
  value: string;
  /** The record time the entity must be known at (the command's, a read's cut); default now. */
  recordedAt?: string | undefined;
  /** A value that names no entity is this literal string instead of an error (dstLiteral, a read's dst filter). */
  orLiteral?: boolean;
  /** Where to add the command creating a missing entity, with the call's actor; absent: never create (a read). */
  create?: { commands: WireCommandInput[]; actor?: string | undefined };
  /** How the model could give a value instead of an entity, for the error when none is found. */
  literalHint?: string;
}

/** Candidates listed in an ambiguity error (one more is fetched to know there are more). */
const MAX_CANDIDATES = 10;

type Found = { kind: 'id' } | { kind: 'name'; entities: EntityResponse[] };

export class EntityResolver {
  readonly resolved: Resolution[] = [];
  /** Entities this batch declares: by id, and by normalised name or alias. */
  private readonly declaredIds = new Set<string>();
  private readonly declaredNames = new Map<string, string>();
  /** One lookup per value and record time for the whole call. */
  private readonly lookups = new Map<string, Promise<Found>>();

  constructor(
    private readonly memory: MemoryClient,
    /** Create an entity for a name that finds none (where the reference allows it). */
    private readonly createMissing = false,
  ) {}

  /** The entity `ref` names (its id), or the literal it stands for. */
  async resolve(ref: Reference): Promise<{ entityId: string } | { literal: string }> {
    const { field, value } = ref;
    const declared = this.declaredIds.has(value) ? value : this.declaredNames.get(normaliseName(value));
    if (declared !== undefined) return this.note({ field, value, entityId: declared, by: declared === value ? 'id' : 'name' });
    const found = await this.find(value, ref.recordedAt);
    if (found.kind === 'id') return this.note({ field, value, entityId: value, by: 'id' });
    const [only, ...others] = found.entities;
    if (only && others.length === 0) return this.note({ field, value, entityId: only.entityId, by: 'name' });
    if (only) throw ambiguous(field, value, found.entities, 'pass one of these ids instead of the name');
    if (ref.orLiteral) return this.note({ field, value, literal: value });
    if (this.createMissing && ref.create) {
      const entityId = this.derivedId(value);
      ref.create.commands.push({
        op: 'UPSERT_ENTITY',
        entityId,
        name: value,
        ...(ref.recordedAt === undefined ? {} : { recordedAt: ref.recordedAt }),
        ...(ref.create.actor === undefined ? {} : { actor: ref.create.actor }),
      });
      this.declare(entityId, [value]);
      return this.note({ field, value, entityId, by: 'created' });
    }
    throw notFound(ref);
  }

  /** An entity id `ref` must name (a participant, a merge): a literal is not an answer. */
  async entityId(ref: Reference): Promise<string> {
    const resolved = await this.resolve(ref);
    return (resolved as { entityId: string }).entityId;
  }

  /**
   * The entity an UPSERT_ENTITY without entityId updates: the one entity with that name or alias; none
   * (undefined): the service creates one with the id derived from the name. Several are an error.
   */
  async entityNamed(field: string, name: string, recordedAt?: string): Promise<string | undefined> {
    const declared = this.declaredNames.get(normaliseName(name));
    if (declared !== undefined) return declared;
    const found = await this.byName(name, recordedAt);
    if (found.length > 1) throw ambiguous(field, name, found, 'pass entityId to say which one this is about');
    if (found[0]) this.note({ field, value: name, entityId: found[0].entityId, by: 'name' });
    return found[0]?.entityId;
  }

  /** The id the service gives an entity created by name (UPSERT_ENTITY without entityId). */
  derivedId(name: string): string {
    return deriveEntityId(this.memory.memoryId, name);
  }

  /** An entity the batch creates or updates: later commands find it by id, name and aliases without a lookup. */
  declare(entityId: string, names: readonly string[]): void {
    this.declaredIds.add(entityId);
    for (const name of names) {
      const key = normaliseName(name);
      if (!this.declaredNames.has(key)) this.declaredNames.set(key, entityId);
    }
  }

  private note(resolution: Resolution): { entityId: string } | { literal: string } {
    this.resolved.push(resolution);
    return 'literal' in resolution ? { literal: resolution.literal } : { entityId: resolution.entityId };
  }

  private find(value: string, recordedAt: string | undefined): Promise<Found> {
    const key = `${recordedAt ?? ''}\u0000${value}`;
    let found = this.lookups.get(key);
    if (!found) {
      found = this.lookup(value, recordedAt);
      this.lookups.set(key, found);
    }
    return found;
  }

  private async lookup(value: string, recordedAt: string | undefined): Promise<Found> {
    if (id.safeParse(value).success) {
      try {
        await this.memory.entity(value, recordedAt === undefined ? {} : { recordedAt });
        return { kind: 'id' };
      } catch (error) {
        if (!isAbsent(error)) throw error;
      }
    }
    return { kind: 'name', entities: await this.byName(value, recordedAt) };
  }

  private async byName(name: string, recordedAt: string | undefined): Promise<EntityResponse[]> {
    try {
      const page = await this.memory.entities({ name, limit: MAX_CANDIDATES + 1, ...(recordedAt === undefined ? {} : { recordedAt }) });
      return page.entities;
    } catch (error) {
      if (isAbsent(error)) return [];
      throw error;
    }
  }
}

/** No such entity, or no memory yet (a memory exists from its first write: no name finds anything there). */
function isAbsent(error: unknown): boolean {
  return error instanceof MemoTraceError && (error.code === 'UNKNOWN_ENTITY' || error.code === 'UNKNOWN_MEMORY');
}

function ambiguous(field: string, value: string, entities: EntityResponse[], hint: string): ToolError {
  const listed = entities.slice(0, MAX_CANDIDATES).map(describeEntity);
  const more = entities.length > MAX_CANDIDATES ? ' and more (find_entities lists them all)' : '';
  return new ToolError(
    `AMBIGUOUS_ENTITY: ${field} ${JSON.stringify(value)} is a name or alias of ${entities.length > MAX_CANDIDATES ? 'more than ' : ''}` +
      `${listed.length} entities: ${listed.join('; ')}${more}. To go on, ${hint}.`,
  );
}

/** `alice (name "Alice"; aliases "Ally"; types person)`. */
function describeEntity(entity: EntityResponse): string {
  const parts = [`name ${JSON.stringify(entity.name)}`];
  if (entity.aliases.length > 0) parts.push(`aliases ${entity.aliases.map((a) => JSON.stringify(a)).join(', ')}`);
  if (entity.types.length > 0) parts.push(`types ${entity.types.join(', ')}`);
  return `${entity.entityId} (${parts.join('; ')})`;
}

function notFound(ref: Reference): ToolError {
  const ways = ref.create ? ['repeat this call with createMissing: true to create it', 'create it first with remember_entity'] : [];
  if (ref.literalHint) ways.push(ref.literalHint);
  ways.push('look for it under another name with find_entities (e.g. match: "prefix")');
  const options = ways.length === 1 ? ways[0] : `${ways.slice(0, -1).join('; ')}; or ${ways.at(-1)}`;
  return new ToolError(
    `UNKNOWN_ENTITY: ${ref.field} ${JSON.stringify(ref.value)} is neither an entity id nor the name or alias of an entity` +
      `${ref.recordedAt === undefined ? '' : ` recorded by ${ref.recordedAt}`}. To go on, ${options}.`,
  );
}
