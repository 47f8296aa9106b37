import { MIN_BAR, layoutTimeline } from './timeline';

const MAR_1 = '2024-03-01T00:00:00.000Z';
const MAR_11 = '2024-03-11T00:00:00.000Z';
const MAR_21 = '2024-03-21T00:00:00.000Z';
const APR_10 = '2024-04-10T00:00:00.000Z';

describe('topics timeline layout', () => {
  it('places each window across the span of all the windows', () => {
    const { bars, from, to } = layoutTimeline(
      [
        { from: MAR_1, to: MAR_21 },
        { from: MAR_11, to: APR_10 },
      ],
      '*',
    );
    expect([from, to]).toEqual([Date.parse(MAR_1), Date.parse(APR_10)]);
    expect(bars.map((b) => [b.left, b.width, b.open])).toEqual([
      [0, 50, false],
      [25, 75, false],
    ]);
  });

  it('runs an open window to the right edge, past every known end', () => {
    const { bars } = layoutTimeline(
      [
        { from: MAR_1, to: MAR_21 },
        { from: MAR_11, to: null },
      ],
      '*',
    );
    expect(bars[0]).toEqual({ left: 0, width: 100, open: false });
    expect(bars[1]).toEqual({ left: 50, width: 50, open: true });
  });

  it('keeps a short window visible and inside the timeline', () => {
    const { bars } = layoutTimeline(
      [
        { from: MAR_1, to: APR_10 },
        { from: APR_10, to: APR_10 },
      ],
      '*',
    );
    expect(bars[1]).toEqual({ left: 100 - MIN_BAR, width: MIN_BAR, open: false });
  });

  it('gives a lone instant a day of room', () => {
    const { bars, from, to } = layoutTimeline([{ from: MAR_1, to: null }], '*');
    expect(to - from).toBe(86_400_000);
    expect(bars).toEqual([{ left: 0, width: 100, open: true }]);
  });

  it("marks the cut's valid time inside the span only", () => {
    const windows = [{ from: MAR_1, to: MAR_21 }];
    expect(layoutTimeline(windows, MAR_11).cutAt).toBe(50);
    expect(layoutTimeline(windows, APR_10).cutAt).toBeUndefined();
    expect(layoutTimeline(windows, '*').cutAt).toBeUndefined();
  });
});
