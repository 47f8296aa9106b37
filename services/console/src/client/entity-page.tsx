import type { EntityResponse, EventView, EventsResponse, FactVersion, FactsResponse, MentionView } from '@memotrace/contracts';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { memoryPath } from './api';
import { type Cut, cutQuery, formatInstant } from './cut';
import { CutControls } from './cut-controls';
import { type Ring, ringLayout } from './graph-layout';
import { Dst, FactLink, entityNames, interval } from './memory-page';
import { BackToMemory, Link, Loading, Section, TierBadge, consolePath, navigate, useApi } from './ui';

/** Evidence mentions the graph labels: a neighbourhood is read at a glance, not exhaustively. */
const MAX_MENTIONS = 25;

interface Neighbourhood {
  entity: EntityResponse;
  facts: FactVersion[];
  events: EventView[];
  mentions: MentionView[];
  names: Map<string, string>;
}

interface GraphNode {
  id: string;
  label: string;
  kind: 'center' | 'entity' | 'literal' | 'fact' | 'event' | 'mention';
  href?: string;
}
interface GraphEdge {
  source: string;
  target: string;
  label: string;
}

/** The neighbourhood as a graph: facts are nodes between their two ends, so evidence and events can point at them. */
export function neighbourhoodGraph(memoryId: string, n: Neighbourhood, cut: Cut): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const q = cutQuery(cut);
  const nodes = new Map<string, GraphNode>();
  const edges: GraphEdge[] = [];
  const entityNode = (entityId: string) => {
    const id = `entity:${entityId}`;
    if (!nodes.has(id))
      nodes.set(id, {
        id,
        label: n.names.get(entityId) ?? entityId,
        kind: entityId === n.entity.entityId ? 'center' : 'entity',
        href: consolePath(memoryId, `/entities/${encodeURIComponent(entityId)}${q}`),
      });
    return id;
  };
  entityNode(n.entity.entityId);
  for (const fact of n.facts) {
    const factNode = `fact:${fact.factId}`;
    nodes.set(factNode, {
      id: factNode,
      label: fact.rel,
      kind: 'fact',
      href: consolePath(memoryId, `/facts/${encodeURIComponent(fact.factId)}${q}`),
    });
    edges.push({ source: entityNode(fact.src), target: factNode, label: '' });
    if (typeof fact.dst === 'string') edges.push({ source: factNode, target: entityNode(fact.dst), label: '' });
    else {
      const literal = `literal:${fact.factId}`;
      nodes.set(literal, { id: literal, label: JSON.stringify(fact.dst.literal), kind: 'literal' });
      edges.push({ source: factNode, target: literal, label: '' });
    }
  }
  for (const event of n.events) {
    const id = `event:${event.eventId}`;
    nodes.set(id, { id, label: event.summary ?? event.eventId, kind: 'event', href: consolePath(memoryId, `${q}#events`) });
    const before = edges.length;
    for (const factId of event.includesFacts)
      if (nodes.has(`fact:${factId}`)) edges.push({ source: id, target: `fact:${factId}`, label: 'includes' });
    for (const p of event.participants) edges.push({ source: id, target: entityNode(p.entityId), label: p.role });
    // About the entity through evidence not valid at this cut: it hangs on the entity itself.
    if (edges.length === before) edges.push({ source: id, target: entityNode(n.entity.entityId), label: 'about' });
  }
  const mentions = new Map(n.mentions.map((m) => [m.mentionId, m]));
  for (const fact of n.facts) {
    for (const mentionId of fact.evidence) {
      const id = `mention:${mentionId}`;
      const mention = mentions.get(mentionId);
      if (!nodes.has(id))
        nodes.set(id, {
          id,
          label: mention?.text ? `“${mention.text.length > 40 ? `${mention.text.slice(0, 39)}…` : mention.text}”` : mentionId,
          kind: 'mention',
          href: consolePath(memoryId, `/mentions/${encodeURIComponent(mentionId)}${q}`),
        });
      edges.push({ source: id, target: `fact:${fact.factId}`, label: 'evidence' });
    }
  }
  return { nodes: [...nodes.values()], edges };
}

/** How the keyboard's selection names a node's kind. */
const KIND_NAMES: Record<GraphNode['kind'], string> = {
  center: 'this entity',
  entity: 'entity',
  literal: 'value',
  fact: 'fact',
  event: 'event',
  mention: 'evidence mention',
};

/** What the keyboard's selection says of node `i` of the graph. */
function nodeAnnouncement(graph: { nodes: readonly GraphNode[] }, i: number): string {
  const node = graph.nodes[i]!;
  return `${node.label} (${KIND_NAMES[node.kind]}), ${i + 1} of ${graph.nodes.length}${node.href ? ': Enter opens it' : ''}`;
}

/** The node the keyboard moves to from `at` (-1: none selected yet) on `key`; undefined for a key it does not use. */
function nextNode(key: string, at: number, count: number): number | undefined {
  switch (key) {
    case 'ArrowRight':
    case 'ArrowDown':
      return (at + 1) % count;
    case 'ArrowLeft':
    case 'ArrowUp':
      return at <= 0 ? count - 1 : at - 1;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return undefined;
  }
}

/** Fills with at least 4.5:1 contrast for dark labels, and their borders. */
const FILL: Record<GraphNode['kind'], [fill: string, border: string]> = {
  center: ['#1f4e79', '#1f4e79'],
  entity: ['#9ecae1', '#1f4e79'],
  literal: ['#eeeeee', '#555555'],
  fact: ['#fdd49e', '#8c4a00'],
  event: ['#c7e9c0', '#1b5e20'],
  mention: ['#dadaeb', '#4a1486'],
};
/** How far from a node's centre its shape reaches (edges stop there, labels start below it). */
const REACH: Record<GraphNode['kind'], number> = { center: 19, entity: 13, literal: 13, fact: 9, event: 14, mention: 13 };
const RING: Record<GraphNode['kind'], Ring> = { center: 0, fact: 1, entity: 2, literal: 2, event: 2, mention: 2 };
const LABEL = 24;
const PAD = 70;

const short = (label: string) => (label.length > LABEL ? `${label.slice(0, LABEL - 1)}…` : label);

/** A node's shape: circles are entities, small squares facts, squares values, diamonds events, tags mentions. */
function Shape({ kind }: { kind: GraphNode['kind'] }) {
  const [fill, stroke] = FILL[kind];
  const r = REACH[kind];
  const paint = { fill, stroke, 'stroke-width': 1 };
  switch (kind) {
    case 'fact':
      return <rect x={-r} y={-r} width={2 * r} height={2 * r} rx={3} {...paint} />;
    case 'literal':
      return <rect x={-r} y={-r} width={2 * r} height={2 * r} {...paint} />;
    case 'event':
      return <polygon points={`0,${-r} ${r},0 0,${r} ${-r},0`} {...paint} />;
    case 'mention':
      return <polygon points={`${-r},${-r * 0.7} ${r * 0.4},${-r * 0.7} ${r},0 ${r * 0.4},${r * 0.7} ${-r},${r * 0.7}`} {...paint} />;
    default:
      return <circle r={r} {...paint} />;
  }
}

/**
 * The graph as SVG, its nodes placed on rings by d3-force (`ringLayout`). It takes the keyboard: arrow keys
 * (Home, End) select its nodes one by one, a live region says which, Enter opens it; a click opens a node too.
 */
function Graph({ graph, label }: { graph: ReturnType<typeof neighbourhoodGraph>; label: string }) {
  // The selection belongs to the graph it was made in: a new neighbourhood starts with none selected.
  const [selection, select] = useState({ graph, at: -1 });
  const at = selection.graph === graph ? selection.at : -1;
  const setAt = (next: number) => select({ graph, at: next });
  const frame = useRef<HTMLDivElement>(null);
  // The whole neighbourhood fits its frame; at its actual size (labels at theirs) a larger one scrolls,
  // opening on the entity at the centre of its rings, and the node the keyboard selects comes into view.
  const [actual, setActual] = useState(false);
  useLayoutEffect(() => {
    const f = frame.current;
    if (f === null || !actual) return;
    f.scrollLeft = (f.scrollWidth - f.clientWidth) / 2;
    f.scrollTop = (f.scrollHeight - f.clientHeight) / 2;
  }, [graph, actual]);
  useEffect(() => frame.current?.querySelector('.node.selected')?.scrollIntoView({ block: 'nearest', inline: 'nearest' }), [at]);
  // Laid out once per neighbourhood, not on each selection: the positions, the drawing's bounds, the nodes by id.
  const { placed, byId, left, top, width, height } = useMemo(() => {
    const positions = ringLayout(
      graph.nodes.map((n) => ({ id: n.id, ring: RING[n.kind] })),
      graph.edges,
    );
    const xs = [...positions.values()].map((p) => p.x);
    const ys = [...positions.values()].map((p) => p.y);
    const [x0, y0] = [Math.min(...xs) - PAD * 1.5, Math.min(...ys) - PAD / 2];
    return {
      placed: positions,
      byId: new Map(graph.nodes.map((n) => [n.id, n])),
      left: x0,
      top: y0,
      width: Math.max(...xs) - x0 + PAD * 1.5,
      height: Math.max(...ys) - y0 + PAD,
    };
  }, [graph]);
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      const href = at < 0 ? undefined : graph.nodes[at]!.href;
      if (href === undefined) return;
      event.preventDefault();
      navigate(href);
      return;
    }
    const next = nextNode(event.key, at, graph.nodes.length);
    if (next === undefined) return;
    event.preventDefault();
    setAt(next);
  };
  const selected = at < 0 ? undefined : graph.nodes[at];
  return (
    <>
      <a class="skip-graph" href="#facts">
        Skip the graph: its facts, events and evidence are listed below
      </a>
      <div
        class="graph"
        ref={frame}
        tabIndex={0}
        role="application"
        aria-roledescription="graph"
        aria-label={label}
        aria-describedby="graph-keys"
        data-testid="graph"
        data-nodes={graph.nodes.length}
        onKeyDown={onKey}
      >
        <svg
          viewBox={`${left} ${top} ${width} ${height}`}
          preserveAspectRatio="xMidYMid meet"
          style={actual ? { width: `${Math.ceil(width)}px`, height: `${Math.ceil(height)}px` } : { width: '100%', height: '100%' }}
          aria-hidden="true"
        >
          <defs>
            <marker id="graph-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill="#666" />
            </marker>
          </defs>
          {graph.edges.map((e, i) => {
            const [a, b] = [placed.get(e.source)!, placed.get(e.target)!];
            const length = Math.hypot(b.x - a.x, b.y - a.y) || 1;
            const reach = REACH[byId.get(e.target)!.kind] + 2;
            const [x2, y2] = [b.x - ((b.x - a.x) * reach) / length, b.y - ((b.y - a.y) * reach) / length];
            return (
              <g key={i} class="edge">
                <line x1={a.x} y1={a.y} x2={x2} y2={y2} marker-end="url(#graph-arrow)" />
                {e.label ? (
                  <text x={(a.x + b.x) / 2} y={(a.y + b.y) / 2} class="edge-label">
                    {e.label}
                  </text>
                ) : null}
              </g>
            );
          })}
          {graph.nodes.map((n) => {
            const p = placed.get(n.id)!;
            return (
              <g
                key={n.id}
                class={`node ${n.kind}${n === selected ? ' selected' : ''}${n.href ? ' linked' : ''}`}
                transform={`translate(${p.x},${p.y})`}
                data-node={n.id}
                onClick={n.href ? () => navigate(n.href!) : undefined}
              >
                {n === selected ? <circle r={REACH[n.kind] + 8} class="ring" /> : null}
                <Shape kind={n.kind} />
                <text y={REACH[n.kind] + 14} class={n.kind === 'center' ? 'label center' : 'label'}>
                  {short(n.label)}
                </text>
                <title>{n.label}</title>
              </g>
            );
          })}
        </svg>
      </div>
      <button type="button" class="more" aria-pressed={actual} onClick={() => setActual(!actual)}>
        {actual ? 'Fit the graph to its frame' : 'Show the graph at its actual size'}
      </button>
      <p id="graph-keys" class="muted">
        Circles are entities, small squares facts, diamonds events, tags the mentions that evidence a fact. Select a node to open it; with the
        keyboard, the arrow keys move from node to node and Enter opens the one selected.
      </p>
      <p class="muted" aria-live="polite" data-testid="graph-selection">
        {selected ? nodeAnnouncement(graph, at) : ''}
      </p>
    </>
  );
}

/** `/console/memories/{memoryId}/entities/{entityId}`: the entity's facts, events and evidence at the cut, as a graph and as lists. */
export function EntityPage({ memoryId, entityId, cut }: { memoryId: string; entityId: string; cut: Cut }) {
  const query = { validAt: cut.validAt, recordedAt: cut.recordedAt };
  const state = useApi(
    async (get): Promise<Neighbourhood> => {
      // One round: what the cut holds about the entity, its facts with the entities they name and the mentions they cite.
      const include = ['entities', 'mentions'];
      const [entity, out, into, events] = await Promise.all([
        get<EntityResponse>(memoryPath(memoryId, `/entities/${encodeURIComponent(entityId)}`), { query: { recordedAt: cut.recordedAt } }),
        get<FactsResponse>(memoryPath(memoryId, '/facts'), { query: { ...query, src: entityId, include } }),
        get<FactsResponse>(memoryPath(memoryId, '/facts'), { query: { ...query, dst: entityId, include } }),
        get<EventsResponse>(memoryPath(memoryId, '/events'), { query: { ...query, entity: entityId } }),
      ]);
      const facts = [...out.facts, ...into.facts.filter((f) => f.src !== entity.entityId)];
      const cited = new Map([...(out.mentions ?? []), ...(into.mentions ?? [])].map((m) => [m.mentionId, m]));
      // The graph labels the first evidence mentions, in the facts' order.
      const mentions = [...new Set(facts.flatMap((f) => f.evidence))].flatMap((id) => cited.get(id) ?? []).slice(0, MAX_MENTIONS);
      const names = entityNames([entity, ...(out.entities ?? []), ...(into.entities ?? [])]);
      return { entity, facts, events: events.events, mentions, names };
    },
    [memoryId, entityId, cut.validAt, cut.recordedAt],
  );
  return (
    <>
      <h1>
        Entity <span class="id">{entityId}</span>
      </h1>
      <BackToMemory memoryId={memoryId} cut={cut} />
      <CutControls cut={cut} />
      <Loading state={state}>
        {(n) => {
          const graph = neighbourhoodGraph(memoryId, n, cut);
          return (
            <>
              <p>
                <strong>{n.entity.name ?? <em>erased</em>}</strong>
                {n.entity.aliases.length > 0 ? ` (also ${n.entity.aliases.join(', ')})` : ''}
                {n.entity.types.length > 0 ? `, ${n.entity.types.join(', ')}` : ''}; recorded {formatInstant(n.entity.recordedFrom)}.
              </p>
              <Section title="Neighbourhood at this cut" id="graph">
                <Graph
                  graph={graph}
                  label={
                    `Graph of ${n.entity.name ?? entityId}: ${n.facts.length} facts, ${n.events.length} events, ` +
                    `${n.mentions.length} evidence mentions; the same is listed below`
                  }
                />
              </Section>
              <Section title="Facts" id="facts">
                {n.facts.length === 0 ? <p>No fact about this entity at this cut.</p> : null}
                <ul>
                  {n.facts.map((f) => (
                    <li key={f.factId}>
                      <span>{n.names.get(f.src) ?? f.src}</span> <span class="rel">{f.rel}</span>{' '}
                      <Dst fact={f} names={n.names} memoryId={memoryId} cut={cut} />{' '}
                      <span class="muted">valid {interval(f.validFrom, f.validTo)}</span> <FactLink memoryId={memoryId} factId={f.factId} cut={cut} />
                      <TierBadge tier={f.tier} />
                      {f.evidence.length > 0 ? (
                        <>
                          {' '}
                          evidence:{' '}
                          {f.evidence.map((m) => (
                            <Link key={m} class="id" href={consolePath(memoryId, `/mentions/${encodeURIComponent(m)}${cutQuery(cut)}`)}>
                              {m}
                            </Link>
                          ))}
                        </>
                      ) : null}
                    </li>
                  ))}
                </ul>
              </Section>
              <Section title="Events" id="entity-events">
                {n.events.length === 0 ? <p>No event about this entity at this cut.</p> : null}
                <ul>
                  {n.events.map((e) => (
                    <li key={e.eventId}>
                      {e.summary ?? <em>erased</em>} <span class="muted">{interval(e.timeSpan.from, e.timeSpan.to)}</span>
                    </li>
                  ))}
                </ul>
              </Section>
            </>
          );
        }}
      </Loading>
    </>
  );
}
