import { layoutDiagram } from './diagram';

/** The Acme/Beta fact alice-acme: believed open from Monday, corrected on Thursday to end on Wednesday. */
const MON = '2024-05-06T00:00:00.000Z';
const MON_9 = '2024-05-06T09:00:00.000Z';
const WED = '2024-05-08T00:00:00.000Z';
const THU_10 = '2024-05-09T10:00:00.000Z';
const versions = [
  { validFrom: MON, validTo: null, recordedFrom: MON_9, recordedTo: THU_10 },
  { validFrom: MON, validTo: WED, recordedFrom: THU_10, recordedTo: null },
];

describe('bitemporal diagram layout', () => {
  const layout = layoutDiagram(versions, { validAt: '2024-05-08T12:00:00.000Z', recordedAt: '2024-05-08T12:00:00.000Z' });
  const { plot } = layout;
  const [v1, v2] = layout.rects as [(typeof layout.rects)[0], (typeof layout.rects)[0]];

  it('draws valid time across and record time up, one rectangle per version', () => {
    expect(layout.rects).toHaveLength(2);
    expect(v1.x).toBe(v2.x); // same validFrom
    expect(v2.y + v2.height).toBeCloseTo(v1.y); // v2 starts (bottom) where v1 ends (top) in record time
    expect(v2.y).toBeLessThan(v1.y); // later record time is higher
  });

  it('runs open ends to the edge of the plot, past every finite time', () => {
    expect(v1.openRight).toBe(true);
    expect(v1.x + v1.width).toBeCloseTo(plot.x + plot.width);
    expect(v2.openTop).toBe(true);
    expect(v2.y).toBe(plot.y);
    expect(v2.openRight).toBe(false);
    expect(v2.x + v2.width).toBeLessThan(plot.x + plot.width - 1);
    for (const r of layout.rects) {
      expect(r.x).toBeGreaterThanOrEqual(plot.x);
      expect(r.y + r.height).toBeLessThanOrEqual(plot.y + plot.height);
    }
  });

  it('places the cut inside the plot and leaves it out for a valid time of *', () => {
    expect(layout.cut.x).toBeGreaterThan(v2.x + v2.width); // Wednesday noon is after Wednesday 00:00
    expect(layout.cut.y).toBeGreaterThan(v1.y); // recorded Wednesday noon: below Thursday
    expect(layoutDiagram(versions, { validAt: '*' }).cut).toEqual({ x: undefined, y: undefined });
  });

  it('labels the versions’ bounds on the axes without overlapping labels', () => {
    expect(layout.xTicks.map((t) => t.iso)).toEqual([MON, WED]);
    expect(layout.yTicks.map((t) => t.iso)).toEqual([MON_9, THU_10]);
    const single = layoutDiagram([{ validFrom: MON, validTo: null, recordedFrom: MON_9, recordedTo: null }]);
    expect(single.rects[0]!.width).toBeGreaterThan(0);
    expect(single.rects[0]!.height).toBeGreaterThan(0);
  });
});
