import type { Erase } from '../commands';
import { erasedItemsOf, erasureKey, erasureSubjectOf, isEmpty, subjectField } from '../erasure';
import { DomainError } from '../errors';
import type { MemoryState } from '../state';
import { type DecideContext, type Decision, unchanged } from './context';

/**
 * ERASE (SPEC §5.2): an unknown subject is 404; a subject whose content is already gone (erased
 * before, nothing written since) is `unchanged`; otherwise one record lists what it erases.
 */
export function decideErase(command: Erase, { state }: DecideContext): Decision {
  const subject = erasureSubjectOf(command.subject);
  requireSubject(state, command);
  const ids = subjectField(subject);
  const items = erasedItemsOf(state, subject);
  if (isEmpty(items)) return unchanged(ids);
  const generation = state.erasures.get(erasureKey(subject)) ?? 0;
  return { records: [{ type: 'SubjectErased', data: { subject, generation, ...items } }], ids };
}

function requireSubject(state: MemoryState, { subject }: Erase): void {
  if ('entityId' in subject) {
    if (!state.entities.has(subject.entityId))
      throw new DomainError('UNKNOWN_ENTITY', `unknown entity ${JSON.stringify(subject.entityId)}`, {
        field: 'subject.entityId',
        entityId: subject.entityId,
      });
  } else if ('factId' in subject) {
    if (!state.facts.has(subject.factId))
      throw new DomainError('UNKNOWN_FACT', `unknown fact ${JSON.stringify(subject.factId)}`, { field: 'subject.factId', factId: subject.factId });
  } else if ('mentionId' in subject) {
    if (!state.mentions.has(subject.mentionId))
      throw new DomainError('UNKNOWN_MENTION', `unknown mention ${JSON.stringify(subject.mentionId)}`, {
        field: 'subject.mentionId',
        mentionId: subject.mentionId,
      });
  } else if (![...state.mentions.values()].some((m) => m.docId === subject.docId)) {
    throw new DomainError('UNKNOWN_MENTION', `no mention of document ${JSON.stringify(subject.docId)}`, {
      field: 'subject.docId',
      docId: subject.docId,
    });
  }
}
