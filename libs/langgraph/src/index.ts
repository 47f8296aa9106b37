export { type ItemVersion, MemoTraceStore, type MemoTraceStoreOptions } from './store';
export { ITEM_RELATION, ITEM_TYPE, itemEntityId, itemFactId } from './item-facts';
export { type AnswerCheck, type AnswerCheckOptions, answerCheckNode } from './answer-check';
