export * from './client';
// The contract's request and response shapes, so code using the client (and the packed package, whose build
// prints these types in full) can name what it sends and gets back.
export type {
  AuditEvent,
  AuditResponse,
  ChangesResponse,
  CommandResult,
  CommandsResponse,
  EntityResponse,
  ErrorCode,
  ErrorDetail,
  EventView,
  EventsResponse,
  FactChange,
  FactVersion,
  FactsResponse,
  HistoryResponse,
  ImportResponse,
  MemoriesResponse,
  MemorySummary,
  MentionView,
  MentionsResponse,
  SearchItem,
  SearchRequestInput,
  SearchResponse,
  WireCommandInput,
} from '@memotrace/contracts';
