import type {
  AccessResponse,
  CommandsResponse,
  EntityResponse,
  EventsResponse,
  FactsResponse,
  HistoryResponse,
  MemoriesResponse,
  MentionView,
  MentionsResponse,
} from '@memotrace/contracts';
import { useState } from 'preact/hooks';
import { ApiError, callApi, memoryPath } from './api';
import { formatInstant } from './cut';
import { ErrorBox, Loading, Section, useApi, useKey } from './ui';

interface RebuildStatus {
  state: 'idle' | 'running' | 'done' | 'failed';
  to: string | null;
  startedAt: string | null;
  progress: Record<string, unknown> | null;
  result: Record<string, unknown> | null;
  error: string | null;
}

/** The projections' lag from the service's Prometheus metrics (`/metrics`, open like health): log events not yet applied. */
function projectionLags(metrics: string): { projection: string; lag: number }[] {
  return [...metrics.matchAll(/^memotrace_projection_lag_events\{projection="([^"]+)"\} (\S+)$/gm)].map((m) => ({
    projection: m[1]!,
    lag: Number(m[2]),
  }));
}

function RebuildAndLag() {
  const rebuild = useApi((get) => get<RebuildStatus>('/v1/admin/rebuild'), []);
  const lag = useApi(async () => {
    const response = await fetch('/metrics');
    if (!response.ok) throw new ApiError(response.status, 'METRICS', `GET /metrics answered ${response.status}`);
    return projectionLags(await response.text());
  }, []);
  return (
    <>
      <Section title="Rebuild of the read models" id="rebuild">
        <Loading state={rebuild}>
          {(s) => (
            <dl class="facts-list" data-testid="rebuild">
              <dt>State</dt>
              <dd>{s.state}</dd>
              <dt>Started</dt>
              <dd>{s.startedAt === null ? 'never' : formatInstant(s.startedAt)}</dd>
              <dt>Up to</dt>
              <dd>{s.to === null ? 'the head' : formatInstant(s.to)}</dd>
              {s.progress ? (
                <>
                  <dt>Progress</dt>
                  <dd>
                    <code>{JSON.stringify(s.progress)}</code>
                  </dd>
                </>
              ) : null}
              {s.result ? (
                <>
                  <dt>Result</dt>
                  <dd>
                    <code>{JSON.stringify(s.result)}</code>
                  </dd>
                </>
              ) : null}
              {s.error ? (
                <>
                  <dt>Error</dt>
                  <dd>{s.error}</dd>
                </>
              ) : null}
            </dl>
          )}
        </Loading>
        <p class="muted">Start a rebuild with POST /v1/admin/rebuild or the CLI; see docs/operations.md.</p>
      </Section>
      <Section title="Projection lag" id="lag">
        <Loading state={lag}>
          {(lags) =>
            lags.length === 0 ? (
              <p>This process reports no projection (a query-only service).</p>
            ) : (
              <ul>
                {lags.map((l) => (
                  <li key={l.projection}>
                    <span class="id">{l.projection}</span>: {l.lag} log events behind
                  </li>
                ))}
              </ul>
            )
          }
        </Loading>
        <button type="button" onClick={() => (rebuild.reload(), lag.reload())}>
          Refresh
        </button>
      </Section>
    </>
  );
}

type SubjectKind = 'entityId' | 'factId' | 'mentionId' | 'docId';
const KINDS: { kind: SubjectKind; label: string }[] = [
  { kind: 'entityId', label: 'an entity' },
  { kind: 'factId', label: 'a fact' },
  { kind: 'mentionId', label: 'a mention' },
  { kind: 'docId', label: 'a document (all its mentions)' },
];

interface ErasurePlan {
  memoryId: string;
  kind: SubjectKind;
  id: string;
  reason: string;
  /** What will be erased, line by line, as found now through the API. */
  lines: string[];
}

/** Reads what the erasure will take, so the confirmation names it (docs/erasure.md: what is erased, and what stays). */
async function planErasure(memoryId: string, kind: SubjectKind, id: string, reason: string, key: string | null): Promise<ErasurePlan> {
  const get = <T,>(path: string, query: Record<string, string | number | undefined> = {}) => callApi<T>(memoryPath(memoryId, path), key, { query });
  const enc = encodeURIComponent(id);
  const lines: string[] = [];
  switch (kind) {
    case 'entityId': {
      const entity = await get<EntityResponse>(`/entities/${enc}`);
      const [out, into, events] = await Promise.all([
        get<FactsResponse>('/facts', { validAt: '*', src: id }),
        get<FactsResponse>('/facts', { validAt: '*', dst: id }),
        get<EventsResponse>('/events', { validAt: '*', entity: id }),
      ]);
      const facts = [...new Set([...out.facts, ...into.facts].map((f) => f.factId))];
      const taking = events.events.filter((e) => e.participants.some((p) => p.entityId === id));
      lines.push(
        `the entity's name ${JSON.stringify(entity.name)}, its ${entity.aliases.length} aliases and ${entity.types.length} types`,
        `the literal value and source of every fact naming it, in every version: ${facts.length} facts believed now (${facts.join(', ') || 'none'})`,
        `the summary of every event it took part in: ${taking.length} events visible now (${taking.map((e) => e.eventId).join(', ') || 'none'})`,
      );
      break;
    }
    case 'factId': {
      const history = await get<HistoryResponse>(`/facts/${enc}/history`);
      const first = history.versions[0];
      lines.push(
        `the literal value and the source of fact ${id}${first ? ` (${first.src} ${first.rel} …)` : ''}, ` +
          `in all its ${history.versions.length} versions`,
      );
      break;
    }
    case 'mentionId': {
      const mention = await get<MentionView>(`/mentions/${enc}`);
      lines.push(
        `the text and speaker of mention ${id} in document ${mention.docId}: ${JSON.stringify(mention.text)} (${mention.speaker ?? 'no speaker'})`,
      );
      break;
    }
    case 'docId': {
      const page = await get<MentionsResponse>('/mentions', { docId: id, limit: 1000 });
      if (page.mentions.length === 0) throw new ApiError(404, 'UNKNOWN_MENTION', `document ${JSON.stringify(id)} has no mention`);
      lines.push(
        `the text and speaker of each of the ${page.mentions.length}${page.next ? '+' : ''} mentions of document ${id} ` +
          `(${page.mentions.map((m) => m.mentionId).join(', ')})`,
      );
      break;
    }
  }
  lines.push('the reason of every command that wrote any of that content');
  return { memoryId, kind, id, reason, lines };
}

function Erasure({ memories }: { memories: string[] }) {
  const key = useKey();
  const initial = new URLSearchParams(location.search).get('memory') ?? memories[0] ?? '';
  const [form, setForm] = useState({ memoryId: initial, kind: 'entityId' as SubjectKind, id: '', reason: '' });
  const [plan, setPlan] = useState<ErasurePlan | undefined>();
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const review = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setDone(undefined);
    setTyped('');
    try {
      setPlan(await planErasure(form.memoryId, form.kind, form.id.trim(), form.reason.trim(), key));
    } catch (e) {
      setPlan(undefined);
      setError(e instanceof ApiError ? e : new ApiError(0, 'CLIENT', String(e)));
    }
  };
  const erase = async () => {
    if (!plan) return;
    setError(undefined);
    try {
      const answer = await callApi<CommandsResponse>(memoryPath(plan.memoryId, '/commands'), key, {
        body: { commands: [{ op: 'ERASE', subject: { [plan.kind]: plan.id }, reason: plan.reason }] },
      });
      setDone(`Erased: ${answer.results[0]?.status ?? 'applied'} at position ${answer.position} (command ${answer.results[0]?.commandId ?? '?'}).`);
      setPlan(undefined);
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'CLIENT', String(e)));
    }
  };
  return (
    <Section title="Erase a subject (admin keys)" id="erasure">
      <p class="muted">
        Erasure destroys the subject&apos;s content at every record time; ids, times and the graph&apos;s structure stay, and the erasure itself stays
        in the audit. It needs an admin key and cannot be undone.
      </p>
      <form class="erase" onSubmit={(e) => void review(e)}>
        <div class="field">
          <label for="erase-memory">Memory</label>
          <select id="erase-memory" name="memoryId" value={form.memoryId} onChange={(e) => setForm({ ...form, memoryId: e.currentTarget.value })}>
            {memories.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="erase-kind">Subject</label>
          <select id="erase-kind" name="kind" value={form.kind} onChange={(e) => setForm({ ...form, kind: e.currentTarget.value as SubjectKind })}>
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
        </div>
        <label>
          Its id
          <input name="subjectId" required value={form.id} onInput={(e) => setForm({ ...form, id: e.currentTarget.value })} />
        </label>
        <label class="grow">
          Reason (kept in the audit)
          <input name="reason" required value={form.reason} onInput={(e) => setForm({ ...form, reason: e.currentTarget.value })} />
        </label>
        <button type="submit">Review the erasure…</button>
      </form>
      <ErrorBox error={error} />
      {done ? (
        <p role="status" class="ok">
          {done}
        </p>
      ) : null}
      {plan ? (
        <div class="confirm" role="alertdialog" aria-labelledby="confirm-title" aria-describedby="confirm-what">
          <h3 id="confirm-title">
            Erase {plan.kind.replace('Id', '')} <span class="id">{plan.id}</span> in memory <span class="id">{plan.memoryId}</span>?
          </h3>
          <div id="confirm-what">
            <p>This erases, at every record time:</p>
            <ul data-testid="erasure-plan">
              {plan.lines.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
            <p>
              Reason recorded: <q>{plan.reason}</q>. This cannot be undone.
            </p>
          </div>
          <label>
            Type <span class="id">{plan.id}</span> to confirm
            <input name="confirm" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} autoComplete="off" />
          </label>
          <div class="cut-row">
            <button type="button" class="danger" disabled={typed !== plan.id} onClick={() => void erase()}>
              Erase {plan.id}
            </button>
            <button type="button" onClick={() => setPlan(undefined)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
    </Section>
  );
}

/** `/console/operations`: rebuild progress, projection lag, erasure (offered to admin keys only). */
export function OperationsPage() {
  const state = useApi(async (get) => {
    const [memories, access] = await Promise.all([get<MemoriesResponse>('/v1/memories'), get<AccessResponse>('/v1/access')]);
    return { memories, access };
  }, []);
  return (
    <>
      <h1>Operations</h1>
      <RebuildAndLag />
      <Loading state={state}>
        {({ memories, access }) =>
          access.access === 'admin' ? (
            <Erasure memories={memories.memories.map((x) => x.memoryId)} />
          ) : (
            <Section title="Erase a subject (admin keys)" id="erasure">
              <p data-testid="erasure-needs-admin">
                Erasure needs an admin key. This key (<span class="id">{access.keyId}</span>) has {access.access} access, so the console does not
                offer it; the API would refuse it too.
              </p>
            </Section>
          )
        }
      </Loading>
    </>
  );
}
