import { readFileSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { statusKb } from '../scale/server';

/**
 * Memory of the service process and of the processes it started, read from /proc
 * (Linux; elsewhere every figure is 0). PostgreSQL's processes are counted apart
 * from the others (an embedding worker, for instance), by proportional set size:
 * their shared buffers appear in every backend's RSS, so RSS would count them once
 * per backend.
 */
export interface MemoryFigures {
  /** The service process alone. */
  serviceRssBytes: number;
  /** Its other descendants (not PostgreSQL), RSS summed. */
  childRssBytes: number;
  /** The same per process name ("node embed-worker.js", "esbuild"), RSS summed per name. */
  children: Record<string, number>;
  /** The PostgreSQL processes among its descendants, PSS summed. */
  postgresPssBytes: number;
}

export function memoryOf(pid: number): MemoryFigures {
  const figures: MemoryFigures = { serviceRssBytes: statusKb(pid, 'VmRSS') * 1024, childRssBytes: 0, children: {}, postgresPssBytes: 0 };
  for (const child of descendants(pid)) {
    if (child.name.startsWith('postgres')) {
      figures.postgresPssBytes += pssKb(child.pid) * 1024;
      continue;
    }
    const rss = statusKb(child.pid, 'VmRSS') * 1024;
    const name = describe(child);
    figures.childRssBytes += rss;
    figures.children[name] = (figures.children[name] ?? 0) + rss;
  }
  return figures;
}

/** Samples `memoryOf` until stopped and keeps each figure's peak (peaks of the parts, not of their sum). */
export class MemorySampler {
  readonly peak: MemoryFigures = { serviceRssBytes: 0, childRssBytes: 0, children: {}, postgresPssBytes: 0 };
  private timer: NodeJS.Timeout | undefined;

  constructor(private pid: () => number) {}

  start(intervalMs = 500): this {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    return this;
  }

  sample(): MemoryFigures {
    const now = memoryOf(this.pid());
    this.peak.serviceRssBytes = Math.max(this.peak.serviceRssBytes, now.serviceRssBytes);
    this.peak.childRssBytes = Math.max(this.peak.childRssBytes, now.childRssBytes);
    this.peak.postgresPssBytes = Math.max(this.peak.postgresPssBytes, now.postgresPssBytes);
    for (const [name, rss] of Object.entries(now.children)) this.peak.children[name] = Math.max(this.peak.children[name] ?? 0, rss);
    return now;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** CPU seconds (user + system) used so far by the service process, its PostgreSQL processes and its other descendants. */
export interface CpuFigures {
  service: number;
  postgres: number;
  other: number;
}

export function cpuOf(pid: number): CpuFigures {
  const figures: CpuFigures = { service: cpuSeconds(pid), postgres: 0, other: 0 };
  for (const child of descendants(pid)) {
    if (child.name.startsWith('postgres')) figures.postgres += cpuSeconds(child.pid);
    else figures.other += cpuSeconds(child.pid);
  }
  return figures;
}

export function cpuSince(start: CpuFigures, end: CpuFigures): CpuFigures {
  return { service: end.service - start.service, postgres: end.postgres - start.postgres, other: end.other - start.other };
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, after the parenthesised name). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0; // the process ended
  }
}

/** A node child by the script it runs (the process name alone says only "node"). */
function describe(child: { pid: number; name: string }): string {
  if (child.name !== 'node') return child.name;
  try {
    const script = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8')
      .split('\0')
      .slice(1)
      .find((arg) => /\.(m?js|ts)$/.test(arg));
    return script ? `node ${basename(script)}` : 'node';
  } catch {
    return 'node';
  }
}

/** Every process below `root`, from the parent pid in /proc/<pid>/stat. */
function descendants(root: number): Array<{ pid: number; name: string }> {
  const children = new Map<number, Array<{ pid: number; name: string }>>();
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push({ pid: Number(entry), name });
      children.set(ppid, list);
    } catch {
      // the process ended while we listed them
    }
  }
  const out: Array<{ pid: number; name: string }> = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

function pssKb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Pss:'));
    return line ? Number(line.split(/\s+/)[1]) : 0;
  } catch {
    return statusKb(pid, 'VmRSS'); // no smaps_rollup: RSS overcounts shared memory but is better than nothing
  }
}
