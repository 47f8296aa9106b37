import type { EntityResponse, EventView, EventsResponse, FactVersion, FactsResponse, MentionView } from '@memotrace/contracts';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { memoryPath } from './api';
import { type Cut, cutQuery, formatInstant } from './cut';
import { CutControls } from './cut-controls';
import { Dst, FactLink, entityNames, interval } from './memory-page';
import { BackToMemory, Link, Loading, Section, consolePath, navigate, useApi } from './ui';

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

/** Colours with at least 4.5:1 contrast for their labels (dark text on light fills). */
const STYLE = [
  {
    selector: 'node',
    style: {
      label: 'data(label)',
      'font-size': 12,
      color: '#111',
      'text-wrap': 'wrap',
      'text-max-width': '140px',
      'text-valign': 'bottom',
      'text-margin-y': 4,
      'background-color': '#9ecae1',
      'border-width': 1,
      'border-color': '#1f4e79',
      width: 26,
      height: 26,
    },
  },
  { selector: 'node.center', style: { 'background-color': '#1f4e79', width: 38, height: 38, 'font-weight': 'bold' } },
  { selector: 'node.fact', style: { shape: 'round-rectangle', 'background-color': '#fdd49e', 'border-color': '#8c4a00', width: 18, height: 18 } },
  { selector: 'node.literal', style: { shape: 'rectangle', 'background-color': '#eeeeee', 'border-color': '#555' } },
  { selector: 'node.event', style: { shape: 'diamond', 'background-color': '#c7e9c0', 'border-color': '#1b5e20' } },
  { selector: 'node.mention', style: { shape: 'tag', 'background-color': '#dadaeb', 'border-color': '#4a1486' } },
  // The node the keyboard (or a tap) selected: a thick dark ring, visible on every fill.
  {
    selector: 'node:selected',
    style: { 'border-width': 5, 'border-color': '#000', 'underlay-color': '#ffd54f', 'underlay-opacity': 1, 'underlay-padding': 6 },
  },
  {
    selector: 'edge',
    style: {
      width: 1.5,
      'line-color': '#666',
      'target-arrow-color': '#666',
      'target-arrow-shape': 'triangle',
      'curve-style': 'bezier',
      label: 'data(label)',
      'font-size': 10,
      color: '#333',
      'text-background-color': '#fff',
      'text-background-opacity': 1,
    },
  },
];

/**
 * The graph library, loaded by this page only (a chunk of its own): asked for as the page opens, so it
 * is loaded and compiled while the neighbourhood is read, not after.
 */
const loadGraphLibrary = () => import('cytoscape');

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

/**
 * The graph, drawn by cytoscape on a canvas. It takes the keyboard: arrow keys (Home, End) select its nodes
 * one by one, a live region says which, Enter opens it.
 */
function Graph({ graph, label }: { graph: ReturnType<typeof neighbourhoodGraph>; label: string }) {
  const container = useRef<HTMLDivElement>(null);
  const [said, say] = useState('');
  useEffect(() => {
    let destroyed = false;
    let cy: { destroy(): void } | undefined;
    let at = -1;
    let onKey: ((event: KeyboardEvent) => void) | undefined;
    const element = container.current;
    say('');
    void loadGraphLibrary().then(({ default: cytoscape }) => {
      if (destroyed || container.current === null) return;
      const instance = cytoscape({
        container: container.current,
        elements: [
          ...graph.nodes.map((n) => ({ data: { id: n.id, label: n.label, href: n.href ?? '' }, classes: n.kind })),
          ...graph.edges.map((e, i) => ({ data: { id: `e${i}`, source: e.source, target: e.target, label: e.label } })),
        ],
        style: STYLE as never,
        // Rings around the entity: its facts first, then what they lead to (other entities, events, evidence).
        layout: {
          name: 'concentric',
          animate: false,
          padding: 40,
          minNodeSpacing: 70,
          concentric: (node: { hasClass(c: string): boolean }) => (node.hasClass('center') ? 3 : node.hasClass('fact') ? 2 : 1),
          levelWidth: () => 1,
        } as never,
        maxZoom: 1.3,
        wheelSensitivity: 0.3,
      });
      instance.on('tap', 'node', (event) => {
        const href = event.target.data('href') as string;
        if (href) navigate(href);
      });
      onKey = (event: KeyboardEvent) => {
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
        at = next;
        instance.nodes().unselect();
        instance.getElementById(graph.nodes[at]!.id).select();
        say(nodeAnnouncement(graph, at));
      };
      container.current.addEventListener('keydown', onKey);
      container.current.dataset['nodes'] = String(graph.nodes.length);
      cy = instance;
    });
    return () => {
      destroyed = true;
      if (onKey) element?.removeEventListener('keydown', onKey);
      cy?.destroy();
    };
  }, [graph]);
  return (
    <>
      <a class="skip-graph" href="#facts">
        Skip the graph: its facts, events and evidence are listed below
      </a>
      <div
        class="graph"
        ref={container}
        tabIndex={0}
        role="application"
        aria-roledescription="graph"
        aria-label={label}
        aria-describedby="graph-keys"
        data-testid="graph"
      />
      <p id="graph-keys" class="muted">
        Circles are entities, small squares facts, diamonds events, tags the mentions that evidence a fact. Select a node to open it; with the
        keyboard, the arrow keys move from node to node and Enter opens the one selected.
      </p>
      <p class="muted" aria-live="polite" data-testid="graph-selection">
        {said}
      </p>
    </>
  );
}

/** `/console/memories/{memoryId}/entities/{entityId}`: the entity's facts, events and evidence at the cut, as a graph and as lists. */
export function EntityPage({ memoryId, entityId, cut }: { memoryId: string; entityId: string; cut: Cut }) {
  // Before the first frame, as the page's reads: the graph library loads while they are answered.
  useLayoutEffect(() => void loadGraphLibrary(), []);
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
