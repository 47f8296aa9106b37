import { Presets, SingleBar } from 'cli-progress';

/**
 * Progress of a long CLI operation (import, rebuild) on stderr: a live bar with rate
 * and ETA when stderr is a terminal, else a plain line every `intervalMs` once the
 * operation has run that long (and one at the end if any was printed), so scripted
 * runs get readable logs and a short run, or a failing one, prints only its result or
 * its one error line.
 */
export interface ProgressUpdate {
  done: number;
  total: number;
  /** Units per second; computed from the start when absent. */
  rate?: number;
  /** Seconds left; computed from the rate when absent (null: unknown). */
  etaSeconds?: number | null;
  /** What is happening now, e.g. "building" or "applying on the server". */
  phase?: string;
}

export interface Progress {
  update(update: ProgressUpdate): void;
  stop(): void;
}

export interface ProgressOptions {
  label: string;
  unit: string;
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  intervalMs?: number;
  now?: () => number;
}

export function formatEta(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.ceil(seconds));
  return s < 60
    ? `${s}s`
    : s < 3600
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The figures of one update: rate and ETA derived when not given. */
export function progressFigures(update: ProgressUpdate, elapsedMs: number): { percent: number; rate: number; eta: string } {
  const rate = update.rate ?? (elapsedMs > 0 ? (update.done / elapsedMs) * 1000 : 0);
  const etaSeconds = update.etaSeconds !== undefined ? update.etaSeconds : rate > 0 ? (update.total - update.done) / rate : null;
  const percent = update.total > 0 ? Math.floor((100 * Math.min(update.done, update.total)) / update.total) : 100;
  return { percent, rate: Math.round(rate), eta: update.done >= update.total ? '0s' : formatEta(etaSeconds) };
}

export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? Date.now;
  const started = now();
  return stream.isTTY === true ? barProgress(options, stream, started, now) : lineProgress(options, stream, started, now);
}

function barProgress(options: ProgressOptions, stream: NodeJS.WritableStream, started: number, now: () => number): Progress {
  const bar = new SingleBar(
    {
      stream: stream as NodeJS.WriteStream,
      format: `${options.label} [{bar}] {percentage}% | {value}/{total} ${options.unit} | {rate} ${options.unit}/s | ETA {etaText} {phase}`,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 20,
    },
    Presets.shades_classic,
  );
  let begun = false;
  return {
    update(update) {
      const { rate, eta } = progressFigures(update, now() - started);
      const payload = { rate, etaText: eta, phase: update.phase ?? '' };
      if (!begun) {
        bar.start(update.total, update.done, payload);
        begun = true;
      } else {
        bar.setTotal(update.total);
        bar.update(update.done, payload);
      }
    },
    stop: () => bar.stop(),
  };
}

function lineProgress(options: ProgressOptions, stream: NodeJS.WritableStream, started: number, now: () => number): Progress {
  const intervalMs = options.intervalMs ?? intervalFromEnv();
  let lastPrinted = started;
  let printed = false;
  let last: ProgressUpdate | undefined;
  let lastLine = '';
  const print = (update: ProgressUpdate) => {
    const { percent, rate, eta } = progressFigures(update, now() - started);
    const line =
      `${options.label}${update.phase ? ` ${update.phase}` : ''}: ${update.done}/${update.total} ${options.unit} (${percent}%), ` +
      `${rate} ${options.unit}/s, ETA ${eta}\n`;
    if (line === lastLine) return;
    stream.write(line);
    lastLine = line;
    lastPrinted = now();
    printed = true;
  };
  return {
    update(update) {
      last = update;
      if (now() - lastPrinted >= intervalMs) print(update);
    },
    stop() {
      if (last && printed) print(last);
    },
  };
}

/** MEMOTRACE_PROGRESS_INTERVAL_MS: how often plain progress lines are printed (default 1000). */
function intervalFromEnv(): number {
  const value = Number(process.env['MEMOTRACE_PROGRESS_INTERVAL_MS'] || NaN);
  return Number.isFinite(value) && value >= 0 ? value : 1000;
}
