import type { DefineRelation, MergeEntity, UpsertEntity } from '../commands';
import { deriveEntityId } from '../ids';
import { type DecideContext, type Decision, requireEntity, unchanged, unique } from './context';

export function decideUpsertEntity(command: UpsertEntity, { memoryId, state }: DecideContext): Decision {
  const requestedId = command.entityId ?? deriveEntityId(memoryId, command.name);
  const entityId = state.entities.has(requestedId) ? state.classes.canonical(requestedId) : requestedId;
  const existing = state.entities.get(entityId);
  const aliases = command.aliases ?? [];
  const types = unique(command.types ?? []);
  // An erased entity (no name) is registered again: what the command says is new content.
  if (!existing || existing.name === null) {
    return {
      records: [
        { type: 'EntityRegistered', data: { entityId, name: command.name, aliases: unique(aliases).filter((a) => a !== command.name), types } },
      ],
      ids: { entityId },
    };
  }
  // A different name for a known entity becomes one of its aliases.
  const known = new Set([existing.name, ...existing.aliases.map((a) => a.value)]);
  const newAliases = unique([command.name, ...aliases]).filter((a) => !known.has(a));
  const knownTypes = new Set(existing.types.map((t) => t.value));
  const newTypes = types.filter((t) => !knownTypes.has(t));
  if (newAliases.length === 0 && newTypes.length === 0) return unchanged({ entityId });
  return { records: [{ type: 'EntityAliasesAdded', data: { entityId, aliases: newAliases, types: newTypes } }], ids: { entityId } };
}

export function decideMergeEntity(command: MergeEntity, { state }: DecideContext): Decision {
  const srcRoot = requireEntity(state, command.srcId, 'srcId');
  const dstRoot = requireEntity(state, command.dstId, 'dstId');
  const ids = { srcId: command.srcId, dstId: command.dstId };
  if (srcRoot === dstRoot) return unchanged(ids);
  return { records: [{ type: 'EntitiesMerged', data: { srcId: command.srcId, dstId: command.dstId, srcRoot, dstRoot } }], ids };
}

/** An omitted `retention` keeps the relation's current one; `null` removes it. */
export function decideDefineRelation(command: DefineRelation, { state }: DecideContext): Decision {
  const { rel, cardinality } = command;
  const ids = { rel };
  const current = state.retentions.get(rel) ?? null;
  const retention = command.retention === undefined ? current : command.retention;
  if (state.relations.get(rel) === cardinality && retention === current) return unchanged(ids);
  // The record names a retention only when there is or was one, so records of relations without any stay as they were.
  const data = retention !== null || current !== null ? { rel, cardinality, retention } : { rel, cardinality };
  return { records: [{ type: 'RelationDefined', data }], ids };
}
