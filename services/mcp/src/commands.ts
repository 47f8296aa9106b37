import type { WireCommandInput } from '@memotrace/contracts';
import type { EntityResolver } from './resolve';

/** How the commands of one tool call name their entities: `field` prefixes, and the call's dstLiteral. */
export interface CallShape {
  /** The field path of command `i` in the call's arguments: '' for a one-command tool, `commands[i].` for a batch. */
  prefix(i: number): string;
  /** A string dst that names no entity is a literal string (remember_fact's dstLiteral). */
  dstLiteral?: boolean | undefined;
  /** For the error when a dst names no entity: how this tool takes a value instead. */
  literalHint?: string;
}

/**
 * The commands of a call with every entity reference resolved to an id (EntityResolver), each preceded
 * by the UPSERT_ENTITY commands that create the entities it names when the call says createMissing.
 * What the contract checks (shapes, times, literals) the service still checks.
 */
export async function resolveCommands(resolver: EntityResolver, commands: WireCommandInput[], shape: CallShape): Promise<WireCommandInput[]> {
  const out: WireCommandInput[] = [];
  for (const [i, command] of commands.entries()) {
    const field = (name: string) => `${shape.prefix(i)}${name}`;
    const { recordedAt, actor } = command;
    const create = { commands: out, actor };
    switch (command.op) {
      case 'UPSERT_ENTITY': {
        const entityId = command.entityId ?? (await resolver.entityNamed(field('name'), command.name, recordedAt));
        resolver.declare(entityId ?? resolver.derivedId(command.name), [command.name, ...(command.aliases ?? [])]);
        out.push(entityId === undefined ? command : { ...command, entityId });
        break;
      }
      case 'UPSERT_EDGE': {
        const src = await resolver.entityId({ field: field('src'), value: command.src, recordedAt, create });
        let dst = command.dst;
        if (typeof dst === 'string') {
          const ref = { field: field('dst'), value: dst, recordedAt, create, orLiteral: shape.dstLiteral === true };
          const resolved = await resolver.resolve(shape.literalHint ? { ...ref, literalHint: shape.literalHint } : ref);
          dst = 'literal' in resolved ? { literal: resolved.literal, datatype: 'string' } : resolved.entityId;
        }
        out.push({ ...command, src, dst });
        break;
      }
      case 'UPSERT_EVENT': {
        if (command.participants === undefined) {
          out.push(command);
          break;
        }
        // One after another: a name two participants share is created once.
        const participants: typeof command.participants = [];
        for (const [j, p] of command.participants.entries()) {
          participants.push({
            ...p,
            entityId: await resolver.entityId({ field: field(`participants[${j}]`), value: p.entityId, recordedAt, create }),
          });
        }
        out.push({ ...command, participants });
        break;
      }
      case 'MERGE_ENTITY': {
        const srcId = await resolver.entityId({ field: field('srcId'), value: command.srcId, recordedAt });
        const dstId = await resolver.entityId({ field: field('dstId'), value: command.dstId, recordedAt });
        out.push({ ...command, srcId, dstId });
        break;
      }
      case 'DEFINE_RELATION':
      case 'ARCHIVE_EDGE':
      case 'RETRO_CORRECT':
      case 'LINK':
      case 'UPSERT_EPISODE':
      case 'UPSERT_TOPIC':
      case 'RECORD_MENTION':
      case 'SET_EXTRACTION_GATE':
      case 'SET_TIER_POLICY':
      case 'ERASE':
        out.push(command);
        break;
      default:
        // Every op names its entities above or names none: a new op must say which.
        command satisfies never;
    }
  }
  return out;
}
