import { Writable } from 'node:stream';
import { createProgress, formatEta, progressFigures } from './progress';

function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string; columns: number } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  }) as Writable & {
    isTTY: boolean;
    text: () => string;
    columns: number;
    cursorTo: () => boolean;
    clearLine: () => boolean;
    moveCursor: () => boolean;
  };
  stream.isTTY = isTTY;
  stream.columns = 200;
  stream.cursorTo = () => true;
  stream.clearLine = () => true;
  stream.moveCursor = () => true;
  stream.text = () => text;
  return stream;
}

describe('progress', () => {
  it('derives rate and ETA from the elapsed time unless given', () => {
    expect(progressFigures({ done: 500, total: 2000 }, 1000)).toEqual({ percent: 25, rate: 500, eta: '3s' });
    expect(progressFigures({ done: 10, total: 100, rate: 2, etaSeconds: 125 }, 1000)).toEqual({ percent: 10, rate: 2, eta: '2m05s' });
    expect(progressFigures({ done: 0, total: 100 }, 0)).toEqual({ percent: 0, rate: 0, eta: '?' });
    expect(progressFigures({ done: 7, total: 7, etaSeconds: null }, 10)).toMatchObject({ percent: 100, eta: '0s' });
    expect(formatEta(7300)).toBe('2h01m');
  });

  it('prints periodic plain lines when the stream is not a terminal', () => {
    const stream = sink(false);
    let clock = 0;
    const progress = createProgress({ label: 'import', unit: 'commands', stream, intervalMs: 1000, now: () => clock });
    progress.update({ done: 0, total: 300 });
    clock = 500;
    progress.update({ done: 100, total: 300 }); // within the interval: not printed
    clock = 1000;
    progress.update({ done: 200, total: 300 });
    clock = 1500;
    progress.update({ done: 300, total: 300, phase: 'applying on the server' });
    progress.stop();
    expect(stream.text().split('\n').filter(Boolean)).toEqual([
      'import: 200/300 commands (66%), 200 commands/s, ETA 1s',
      'import applying on the server: 300/300 commands (100%), 200 commands/s, ETA 0s',
    ]);
  });

  it('prints nothing for an operation shorter than the interval', () => {
    const stream = sink(false);
    let clock = 0;
    const progress = createProgress({ label: 'import', unit: 'commands', stream, intervalMs: 1000, now: () => clock });
    progress.update({ done: 0, total: 3 });
    clock = 400;
    progress.update({ done: 3, total: 3 });
    progress.stop();
    expect(stream.text()).toBe('');
  });

  it('draws a bar with rate and ETA on a terminal', () => {
    const stream = sink(true);
    let clock = 0;
    const progress = createProgress({ label: 'rebuild', unit: 'events', stream, now: () => clock });
    progress.update({ done: 0, total: 1000, rate: 0, etaSeconds: null, phase: 'building' });
    clock = 2000;
    progress.update({ done: 1000, total: 1000, rate: 500, etaSeconds: 0, phase: 'done' });
    progress.stop();
    expect(stream.text()).toMatch(/rebuild \[[█░]+\] 100% \| 1000\/1000 events \| 500 events\/s \| ETA 0s done/);
  });
});
