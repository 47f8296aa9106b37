import type { CommandsResponse, ConsolidateResponse, HistoryResponse, MentionView, TopicView, TopicsResponse } from '@memotrace/contracts';
import { useState } from 'preact/hooks';
import { ApiError, type Request, callApi, memoryPath } from './api';
import { type Cut, cutQuery, formatInstant } from './cut';
import { CutControls } from './cut-controls';
import { EntityLink, Pager, interval } from './memory-page';
import { itemHref } from './search-page';
import { layoutTimeline } from './timeline';
import { BackToMemory, ErrorBox, Link, Loading, Section, Table, consolePath, count, useApi, useKey } from './ui';

/** A page of topics: a timeline a reader takes in at a glance. */
const TOPIC_PAGE = 50;
/** Members looked up and listed when a topic opens; the rest on request (a derived topic may hold a thousand). */
const MEMBERS_SHOWN = 50;

type Get = <R>(path: string, request?: Request) => Promise<R>;

/** A topic member as the console shows it: its kind, and for a mention its words, for a fact its statement. */
interface Member {
  kind: 'mention' | 'fact' | 'event';
  id: string;
  text: string | null;
}

const notFound = (error: unknown) => error instanceof ApiError && error.status === 404;

/**
 * What a member is: a topic names mentions, facts and events by id alone, and the API has no lookup of an
 * id's kind, so the member is asked for as a mention, then as a fact; neither is an event.
 */
async function memberOf(get: Get, memoryId: string, id: string, cut: Cut): Promise<Member> {
  const enc = encodeURIComponent(id);
  const query = { recordedAt: cut.recordedAt };
  try {
    const mention = await get<MentionView>(memoryPath(memoryId, `/mentions/${enc}`), { query });
    return { kind: 'mention', id, text: mention.text };
  } catch (error) {
    if (!notFound(error)) throw error;
  }
  try {
    const history = await get<HistoryResponse>(memoryPath(memoryId, `/facts/${enc}/history`), { query });
    const last = history.versions[history.versions.length - 1];
    const dst = last === undefined ? '' : typeof last.dst === 'string' ? last.dst : JSON.stringify(last.dst.literal);
    return { kind: 'fact', id, text: last === undefined ? null : `${last.src} ${last.rel} ${dst}` };
  } catch (error) {
    if (!notFound(error)) throw error;
  }
  return { kind: 'event', id, text: null };
}

/** The members of an opened topic, each one click from its own page (a fact from its diagram). */
function TopicMembers({ memoryId, topic, cut }: { memoryId: string; topic: TopicView; cut: Cut }) {
  const [all, setAll] = useState(false);
  const shown = all ? topic.members : topic.members.slice(0, MEMBERS_SHOWN);
  const state = useApi((get) => Promise.all(shown.map((id) => memberOf(get, memoryId, id, cut))), [memoryId, shown.join('\n'), cut.recordedAt]);
  return (
    <div class="members" id={`members-${topic.topicId}`} data-testid="topic-members">
      <Loading state={state}>
        {(members) => (
          <ul>
            {members.map((m) => (
              <li key={m.id} data-member={`${m.kind}:${m.id}`}>
                <span class={`badge ${m.kind}`}>{m.kind}</span>{' '}
                <Link href={itemHref(memoryId, m.kind, m.id, cut)} class="id">
                  {m.id}
                </Link>
                {m.text === null ? null : <span class="muted"> {m.text}</span>}
              </li>
            ))}
          </ul>
        )}
      </Loading>
      {topic.members.length > MEMBERS_SHOWN ? (
        <button type="button" class="more" aria-expanded={all} onClick={() => setAll(!all)}>
          {all ? `Show the first ${MEMBERS_SHOWN} members` : `Show all ${topic.members.length} members`}
        </button>
      ) : null}
    </div>
  );
}

/** The topics as bars across the span of their windows; a click on a topic opens its members. */
function Timeline({ memoryId, topics, cut, validAt }: { memoryId: string; topics: readonly TopicView[]; cut: Cut; validAt: string }) {
  const [opened, setOpened] = useState<string | undefined>();
  const { bars, from, to, cutAt } = layoutTimeline(
    topics.map((t) => t.window),
    validAt,
  );
  return (
    <div class="timeline">
      <div class="timeline-scale muted" aria-hidden="true">
        <span>{formatInstant(new Date(from).toISOString())}</span>
        <span>{formatInstant(new Date(to).toISOString())}</span>
      </div>
      <ol class="topics">
        {topics.map((topic, i) => {
          const { left, width, open } = bars[i]!;
          const isOpen = opened === topic.topicId;
          return (
            <li key={topic.topicId} data-topic={topic.topicId} class={isOpen ? 'opened' : undefined}>
              <button
                type="button"
                class="topic-head"
                aria-expanded={isOpen}
                aria-controls={isOpen ? `members-${topic.topicId}` : undefined}
                onClick={() => setOpened(isOpen ? undefined : topic.topicId)}
              >
                <span class="topic-line">
                  <strong class="topic-title">{topic.title ?? '(erased)'}</strong>{' '}
                  <span class="muted">
                    {interval(topic.window.from, topic.window.to)}, {count(topic.members.length, 'member')}
                  </span>
                </span>
                <span class="track">
                  <span
                    class={`bar${open ? ' open' : ''}`}
                    style={{ left: `${left}%`, width: `${width}%` }}
                    data-testid="topic-bar"
                    title={`${topic.title ?? '(erased)'}: ${interval(topic.window.from, topic.window.to)}`}
                  />
                  {cutAt === undefined ? null : <span class="cut-mark" style={{ left: `${cutAt}%` }} />}
                </span>
              </button>
              <p class="topic-summary">{topic.summary ?? '(erased)'}</p>
              {isOpen ? <TopicMembers memoryId={memoryId} topic={topic} cut={cut} /> : null}
            </li>
          );
        })}
      </ol>
      <p class="muted">
        Each bar is a topic&apos;s window across the span of the windows listed; a window still open fades out at the right edge
        {cutAt === undefined ? '' : '; the dashed line is the valid time of the cut'}.
      </p>
    </div>
  );
}

const asApiError = (e: unknown) => (e instanceof ApiError ? e : new ApiError(0, 'CLIENT', String(e)));

/**
 * "Consolidate now" (write keys): the memory's evolution run at once, what it did, and its merge suggestions,
 * each accepted only by the reader's click (a MERGE_ENTITY command), never by the run itself.
 */
function Consolidation({ memoryId, cut, onRun }: { memoryId: string; cut: Cut; onRun: () => void }) {
  const key = useKey();
  const [running, setRunning] = useState(false);
  const [run, setRun] = useState<ConsolidateResponse | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  /** `srcId dstId` -> what the merge command answered. */
  const [accepted, setAccepted] = useState<ReadonlyMap<string, string>>(new Map());
  const [accepting, setAccepting] = useState<string | undefined>();
  const consolidate = async () => {
    setRunning(true);
    setError(undefined);
    try {
      setRun(await callApi<ConsolidateResponse>(memoryPath(memoryId, '/consolidate'), key, { body: {} }));
      setAccepted(new Map());
      onRun();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setRunning(false);
    }
  };
  const accept = async (srcId: string, dstId: string) => {
    const pair = `${srcId} ${dstId}`;
    setAccepting(pair);
    setError(undefined);
    try {
      const answer = await callApi<CommandsResponse>(memoryPath(memoryId, '/commands'), key, {
        body: { commands: [{ op: 'MERGE_ENTITY', srcId, dstId }] },
      });
      setAccepted((before) => new Map(before).set(pair, answer.results[0]?.status ?? 'applied'));
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setAccepting(undefined);
    }
  };
  const noNames = new Map<string, string>();
  return (
    <Section title="Consolidation" id="consolidation">
      <p class="muted">
        Runs the memory&apos;s evolution now (it also runs in the background): cooling and warming, episodes and topics, and suggestions of entities
        to merge. What it derives is appended as commands of a consolidator; a merge happens only when you accept one. It needs a write key.
      </p>
      <button type="button" disabled={running} onClick={() => void consolidate()}>
        {running ? 'Consolidating…' : 'Consolidate now'}
      </button>
      <ErrorBox error={error} />
      {run === undefined ? null : (
        <>
          <p role="status" data-testid="consolidation-summary">
            Cooled {count(run.cooled, 'item')}, warmed {count(run.warmed, 'item')}; appended {count(run.appended.length, 'command')}.
          </p>
          {run.appended.length === 0 ? null : (
            <Table columns={['Command', 'Op', 'Status']} caption="What this run appended" data-testid="appended">
              {run.appended.map((a) => (
                <tr key={a.commandId}>
                  <td class="id">{a.commandId}</td>
                  <td>{a.op}</td>
                  <td>
                    <span class={`badge ${a.status}`}>{a.status}</span>
                  </td>
                </tr>
              ))}
            </Table>
          )}
          {run.mergeSuggestions.length === 0 ? (
            <p>No merge suggested: no two entities look like one thing named twice.</p>
          ) : (
            <Table
              columns={['Merge', 'Into', { name: 'Score', class: 'num' }, 'Why', 'Accept']}
              caption="Suggested merges, best first: the first entity is merged into the second"
              data-testid="merge-suggestions"
            >
              {run.mergeSuggestions.map((s) => {
                const pair = `${s.srcId} ${s.dstId}`;
                const status = accepted.get(pair);
                return (
                  <tr key={pair} data-suggestion={pair} class={status === undefined ? undefined : 'accepted'}>
                    <td>
                      <EntityLink memoryId={memoryId} entityId={s.srcId} names={noNames} cut={cut} />
                    </td>
                    <td>
                      <EntityLink memoryId={memoryId} entityId={s.dstId} names={noNames} cut={cut} />
                    </td>
                    <td class="num">{s.score.toFixed(2)}</td>
                    <td>
                      {s.why}
                      {s.evidence.length > 0 ? <span class="muted id"> ({s.evidence.join(', ')})</span> : null}
                    </td>
                    <td>
                      {status === undefined ? (
                        <button type="button" disabled={accepting !== undefined} onClick={() => void accept(s.srcId, s.dstId)}>
                          Accept
                        </button>
                      ) : (
                        <span class="ok">accepted ({status})</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </Table>
          )}
        </>
      )}
    </Section>
  );
}

/**
 * `/console/memories/{memoryId}/topics?validAt=&recordedAt=&after=`: the memory's durative topics at the cut (SPEC 5.4)
 * on a timeline, each opening to its members, and the memory's consolidation run on request. Without a valid time
 * every window is listed (the API's default, `*`); with one, only the topics whose window holds it.
 */
export function TopicsPage({ memoryId, search, cut }: { memoryId: string; search: string; cut: Cut }) {
  const after = new URLSearchParams(search).get('after') ?? undefined;
  const state = useApi(
    (get) =>
      get<TopicsResponse>(memoryPath(memoryId, '/topics'), { query: { validAt: cut.validAt, recordedAt: cut.recordedAt, limit: TOPIC_PAGE, after } }),
    [memoryId, cut.validAt, cut.recordedAt, after],
  );
  return (
    <>
      <h1>
        Topics <span class="id">{memoryId}</span>
      </h1>
      <BackToMemory memoryId={memoryId} cut={cut} />
      <CutControls cut={cut} />
      <Section title="Topics: what went on over a period" id="topics">
        <Loading state={state}>
          {(answer) => (
            <>
              <p class="muted" data-testid="topics-summary">
                Answered for valid time {formatInstant(answer.cut.validAt)}, record time {formatInstant(answer.cut.recordedAt)}:{' '}
                {count(answer.topics.length, 'topic')}
                {answer.next !== null || after !== undefined ? ' on this page' : ''}.
              </p>
              {answer.topics.length === 0 ? (
                <p>
                  No topic is visible at this cut. Consolidation derives topics from what was said and believed over time
                  {answer.cut.validAt === '*' ? null : (
                    <>
                      ; see <Link href={consolePath(memoryId, `/topics${cutQuery({ ...cut, validAt: '*' })}`)}>every valid time</Link>
                    </>
                  )}
                  .
                </p>
              ) : (
                <Timeline memoryId={memoryId} topics={answer.topics} cut={cut} validAt={answer.cut.validAt} />
              )}
              <Pager label="topics" param="after" next={answer.next} current={after} search={search} />
            </>
          )}
        </Loading>
      </Section>
      <Consolidation memoryId={memoryId} cut={cut} onRun={state.reload} />
    </>
  );
}
