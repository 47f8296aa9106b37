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

export function decideDefineRelation(command: DefineRelation, { state }: DecideContext): Decision {
  const ids = { rel: command.rel };
  if (state.relations.get(command.rel) === command.cardinality) return unchanged(ids);
  return { records: [{ type: 'RelationDefined', data: { rel: command.rel, cardinality: command.cardinality } }], ids };
}
