/**
 * The geometry of the bitemporal diagram of a fact's versions: valid time across, record time up,
 * each version the rectangle [validFrom, validTo) x [recordedFrom, recordedTo). Open ends (null) run
 * to the plot's edge, past every finite time shown. Pure: the page draws it as SVG, the unit tests check it.
 */
export interface VersionSpan {
  validFrom: string;
  validTo: string | null;
  recordedFrom: string;
  recordedTo: string | null;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface VersionRect extends Box {
  /** validTo is open: the rectangle runs to the right edge. */
  openRight: boolean;
  /** recordedTo is open (the version is current): the rectangle runs to the top edge. */
  openTop: boolean;
}

export interface Tick {
  at: number;
  iso: string;
}

export interface DiagramLayout {
  width: number;
  height: number;
  plot: Box;
  rects: VersionRect[];
  xTicks: Tick[];
  yTicks: Tick[];
  /** Where the page's cut falls, when it has finite times (a `*` valid time has no line). */
  cut: { x: number | undefined; y: number | undefined };
}

export interface DiagramSize {
  width: number;
  height: number;
  /** Room for the axes' labels: left, bottom, top, right. */
  margin: { left: number; bottom: number; top: number; right: number };
}

export const DEFAULT_SIZE: DiagramSize = { width: 720, height: 360, margin: { left: 150, bottom: 60, top: 16, right: 24 } };

const DAY = 86_400_000;
/** Share of the span added past the last finite time: where open ends go. */
const OPEN_END_ROOM = 0.2;
/** Ticks closer than this (pixels) to the previous one are left out: their labels would overlap. */
const MIN_TICK_GAP = { x: 90, y: 22 };

function extent(times: number[]): [number, number] {
  const lo = Math.min(...times);
  const hi = Math.max(...times);
  const span = hi - lo || DAY;
  // The lowest time sits a little inside the plot; the open ends get room past the highest.
  return [lo - span * 0.05, hi + span * OPEN_END_ROOM];
}

function ticks(times: number[], scale: (t: number) => number, gap: number, descending: boolean): Tick[] {
  const sorted = [...new Set(times)].sort((a, b) => a - b);
  const kept: Tick[] = [];
  let last = Number.NEGATIVE_INFINITY;
  for (const t of sorted) {
    const at = scale(t);
    const distance = descending ? last - at : at - last;
    if (kept.length > 0 && distance < gap) continue;
    kept.push({ at, iso: new Date(t).toISOString() });
    last = at;
  }
  return kept;
}

/** The diagram of `versions` with the page's cut (`validAt` `*` or undefined: no vertical line). */
export function layoutDiagram(
  versions: readonly VersionSpan[],
  cut: { validAt?: string | undefined; recordedAt?: string | undefined } = {},
  size: DiagramSize = DEFAULT_SIZE,
): DiagramLayout {
  const plot: Box = {
    x: size.margin.left,
    y: size.margin.top,
    width: size.width - size.margin.left - size.margin.right,
    height: size.height - size.margin.top - size.margin.bottom,
  };
  const cutValid = cut.validAt !== undefined && cut.validAt !== '*' ? Date.parse(cut.validAt) : undefined;
  const cutRecorded = cut.recordedAt !== undefined ? Date.parse(cut.recordedAt) : undefined;
  const validTimes = versions.flatMap((v) => [Date.parse(v.validFrom), ...(v.validTo === null ? [] : [Date.parse(v.validTo)])]);
  const recordTimes = versions.flatMap((v) => [Date.parse(v.recordedFrom), ...(v.recordedTo === null ? [] : [Date.parse(v.recordedTo)])]);
  const [x0, x1] = extent([...validTimes, ...(cutValid === undefined ? [] : [cutValid])]);
  const [y0, y1] = extent([...recordTimes, ...(cutRecorded === undefined ? [] : [cutRecorded])]);
  const sx = (t: number) => plot.x + ((t - x0) / (x1 - x0)) * plot.width;
  // Record time goes up: later is higher, so a smaller y.
  const sy = (t: number) => plot.y + plot.height - ((t - y0) / (y1 - y0)) * plot.height;
  const rects = versions.map((v): VersionRect => {
    const left = sx(Date.parse(v.validFrom));
    const right = v.validTo === null ? plot.x + plot.width : sx(Date.parse(v.validTo));
    const bottom = sy(Date.parse(v.recordedFrom));
    const top = v.recordedTo === null ? plot.y : sy(Date.parse(v.recordedTo));
    return {
      x: left,
      y: top,
      width: Math.max(right - left, 1),
      height: Math.max(bottom - top, 1),
      openRight: v.validTo === null,
      openTop: v.recordedTo === null,
    };
  });
  return {
    width: size.width,
    height: size.height,
    plot,
    rects,
    xTicks: ticks(validTimes, sx, MIN_TICK_GAP.x, false),
    yTicks: ticks(recordTimes, sy, MIN_TICK_GAP.y, true),
    cut: { x: cutValid === undefined ? undefined : sx(cutValid), y: cutRecorded === undefined ? undefined : sy(cutRecorded) },
  };
}
