/**
 * The geometry of the topics' timeline: each window a bar across the span of all the windows listed, in
 * percent of the timeline's width. The span runs from the earliest start to the latest known end (a
 * closed window's end, or a start); an open window has no end to place, so it runs to the edge, as open
 * ends do in the fact diagram. Pure: the page draws it with HTML and CSS, the unit tests check it.
 */
export interface Window {
  from: string;
  to: string | null;
}

export interface Bar {
  /** Where the bar starts, in percent of the timeline. */
  left: number;
  /** How wide it is, in percent; at least MIN_BAR, so a short window beside a long span still shows. */
  width: number;
  /** The window is open: the bar runs to the right edge. */
  open: boolean;
}

export interface Timeline {
  bars: Bar[];
  /** The span, epoch ms: at least a day, so a lone instant has room. */
  from: number;
  to: number;
  /** Where the cut's valid time falls, in percent; undefined for `*` or a time outside the span. */
  cutAt: number | undefined;
}

const DAY = 86_400_000;
/** The narrowest bar drawn, in percent of the timeline. */
export const MIN_BAR = 0.75;

export function layoutTimeline(windows: readonly Window[], validAt: string): Timeline {
  if (windows.length === 0) return { bars: [], from: 0, to: DAY, cutAt: undefined };
  const starts = windows.map((w) => Date.parse(w.from));
  const ends = windows.flatMap((w) => (w.to === null ? [] : [Date.parse(w.to)]));
  const from = Math.min(...starts);
  const to = Math.max(from + DAY, ...starts, ...ends);
  const at = (ms: number) => ((ms - from) / (to - from)) * 100;
  const bars = windows.map((w, i) => {
    const start = at(starts[i]!);
    const open = w.to === null;
    const width = Math.min(Math.max(open ? 100 - start : at(Date.parse(w.to!)) - start, MIN_BAR), 100);
    return { left: Math.min(start, 100 - width), width, open };
  });
  const cut = validAt === '*' ? Number.NaN : Date.parse(validAt);
  return { bars, from, to, cutAt: cut >= from && cut <= to ? at(cut) : undefined };
}
