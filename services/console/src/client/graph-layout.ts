import { type SimulationLinkDatum, type SimulationNodeDatum, forceCollide, forceLink, forceRadial, forceSimulation } from 'd3-force';

/** Rings around the entity: its facts on the first, what they lead to (other entities, values, events, evidence) on the second. */
export type Ring = 0 | 1 | 2;

export interface LayoutNode {
  id: string;
  ring: Ring;
}

export interface Placed {
  x: number;
  y: number;
}

/** Room a node and its label take on its ring. */
const SPACING = 110;
const FIRST_RING = 130;
const RING_GAP = 150;
/**
 * Steps of the simulation. The nodes start where it would take them (each outer node beside the facts it
 * links to), so a few steps settle them: a page runs them in a fresh script context, where each step of
 * cold code costs, and a larger neighbourhood has a hundred nodes.
 */
const TICKS = 40;

/** The radius of each ring: wide enough for its nodes side by side. */
function radii(nodes: readonly LayoutNode[]): [number, number, number] {
  const on = (ring: Ring) => nodes.filter((n) => n.ring === ring).length;
  const first = Math.max(FIRST_RING, (on(1) * SPACING) / (2 * Math.PI));
  return [0, first, Math.max(first + RING_GAP, (on(2) * SPACING) / (2 * Math.PI))];
}

/**
 * Each ring's nodes at their angles: the facts evenly in their order; each outer node at the facts it links
 * to, those at the same place side by side, a node's width apart (the outer ring has room for all of them).
 */
function angles(nodes: readonly LayoutNode[], links: readonly { source: string; target: string }[], outerRadius: number): Map<string, number> {
  const at = new Map<string, number>();
  const facts = nodes.filter((n) => n.ring === 1);
  facts.forEach((n, k) => at.set(n.id, (2 * Math.PI * k) / facts.length - Math.PI / 2));
  const near = new Map<string, { x: number; y: number }>();
  for (const { source, target } of links)
    for (const [outer, fact] of [
      [source, target],
      [target, source],
    ] as const) {
      const angle = at.get(fact);
      if (angle === undefined || at.has(outer)) continue;
      const sum = near.get(outer) ?? { x: 0, y: 0 };
      near.set(outer, { x: sum.x + Math.cos(angle), y: sum.y + Math.sin(angle) });
    }
  const step = SPACING / outerRadius;
  const heading = (id: string) => {
    const sum = near.get(id);
    return sum === undefined ? undefined : Math.atan2(sum.y, sum.x);
  };
  const outer = nodes.filter((n) => n.ring === 2).map((n, order) => ({ id: n.id, order, heading: heading(n.id) }));
  const linked = outer.filter((n) => n.heading !== undefined).sort((a, b) => a.heading! - b.heading! || a.order - b.order);
  // In heading order, each at its heading or a step past the one before; then all turned back by the mean shift.
  const placed: number[] = [];
  for (const n of linked) placed.push(Math.max(n.heading!, (placed[placed.length - 1] ?? -Infinity) + step));
  const shift = placed.reduce((sum, a, k) => sum + a - linked[k]!.heading!, 0) / Math.max(1, placed.length);
  linked.forEach((n, k) => at.set(n.id, placed[k]! - shift));
  // Outer nodes linked to no fact (an event about the entity itself) follow, a step apart.
  let last = (placed[placed.length - 1] ?? -Math.PI / 2) - shift;
  for (const n of outer.filter((o) => o.heading === undefined)) at.set(n.id, (last += step));
  return at;
}

/**
 * Places the nodes on their rings with d3-force: each starts on its ring beside what it links to, then the
 * radial force holds the rings, the links pull neighbours together and collision keeps labels apart. No
 * randomness enters (d3-force's own jitter is seeded), so a neighbourhood is drawn the same way every time.
 */
export function ringLayout(nodes: readonly LayoutNode[], links: readonly { source: string; target: string }[]): Map<string, Placed> {
  const radius = radii(nodes);
  const start = angles(nodes, links, radius[2]);
  type Datum = SimulationNodeDatum & { id: string; ring: Ring };
  const data: Datum[] = nodes.map((n) => {
    if (n.ring === 0) return { id: n.id, ring: n.ring, x: 0, y: 0, fx: 0, fy: 0 };
    const angle = start.get(n.id)!;
    return { id: n.id, ring: n.ring, x: radius[n.ring] * Math.cos(angle), y: radius[n.ring] * Math.sin(angle) };
  });
  const ids = new Set(data.map((d) => d.id));
  const linked: SimulationLinkDatum<Datum>[] = links.filter((l) => ids.has(l.source) && ids.has(l.target)).map((l) => ({ ...l }));
  const simulation = forceSimulation(data)
    .force('ring', forceRadial<Datum>((d) => radius[d.ring]).strength(0.8))
    .force(
      'link',
      forceLink<Datum, SimulationLinkDatum<Datum>>(linked)
        .id((d) => d.id)
        .distance(RING_GAP)
        .strength(0.05),
    )
    .force('collide', forceCollide<Datum>(SPACING / 2))
    .stop();
  simulation.tick(TICKS);
  return new Map(data.map((d) => [d.id, { x: d.x ?? 0, y: d.y ?? 0 }]));
}
