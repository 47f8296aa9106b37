import { type LayoutNode, ringLayout } from './graph-layout';

describe('ringLayout', () => {
  const nodes: LayoutNode[] = [
    { id: 'entity:alice', ring: 0 },
    ...Array.from({ length: 6 }, (_, i) => ({ id: `fact:f${i}`, ring: 1 as const })),
    ...Array.from({ length: 9 }, (_, i) => ({ id: `entity:e${i}`, ring: 2 as const })),
  ];
  const links = [
    ...Array.from({ length: 6 }, (_, i) => ({ source: 'entity:alice', target: `fact:f${i}` })),
    ...Array.from({ length: 9 }, (_, i) => ({ source: `fact:f${i % 6}`, target: `entity:e${i}` })),
  ];
  const placed = ringLayout(nodes, links);
  const distance = (id: string) => Math.hypot(placed.get(id)!.x, placed.get(id)!.y);

  it('keeps the entity at the centre, its facts on the first ring and the rest further out', () => {
    expect(placed.get('entity:alice')).toEqual({ x: 0, y: 0 });
    const facts = nodes.filter((n) => n.ring === 1).map((n) => distance(n.id));
    const outer = nodes.filter((n) => n.ring === 2).map((n) => distance(n.id));
    expect(Math.min(...facts)).toBeGreaterThan(60);
    expect(Math.max(...facts)).toBeLessThan(Math.min(...outer));
  });

  it('keeps nodes apart, so labels do not overlap their neighbours', () => {
    const points = [...placed.values()];
    for (let i = 0; i < points.length; i++)
      for (let j = i + 1; j < points.length; j++) expect(Math.hypot(points[i]!.x - points[j]!.x, points[i]!.y - points[j]!.y)).toBeGreaterThan(40);
  });

  it('puts each outer node beside the fact it links to', () => {
    const gap = (a: string, b: string) => Math.hypot(placed.get(a)!.x - placed.get(b)!.x, placed.get(a)!.y - placed.get(b)!.y);
    for (let i = 0; i < 9; i++) {
      const own = gap(`entity:e${i}`, `fact:f${i % 6}`);
      const others = Array.from({ length: 6 }, (_, k) => k)
        .filter((k) => k !== i % 6)
        .map((k) => gap(`entity:e${i}`, `fact:f${k}`));
      expect(others.filter((d) => d < own).length).toBeLessThanOrEqual(1);
    }
  });

  it('draws the same neighbourhood the same way every time', () => {
    expect(ringLayout(nodes, links)).toEqual(placed);
  });

  it('ignores a link to a node it does not draw', () => {
    expect(() => ringLayout(nodes, [...links, { source: 'entity:alice', target: 'fact:gone' }])).not.toThrow();
  });
});
