import { type Cut, cutQuery, describeCut, fromInputValue, modeOf, toInputValue } from './cut';
import { navigate } from './ui';

/**
 * The two time controls of a cut: valid time and record time, linked in As-Recorded (record time
 * follows valid time) and As-World (record time is now). Every change re-cuts the page at once and
 * is written into the address (replacing the entry, so Back leaves the page rather than each step).
 */
export function CutControls({ cut, extra = {} }: { cut: Cut; extra?: Record<string, string | undefined> }) {
  const mode = modeOf(cut);
  const go = (next: Cut) => navigate(location.pathname + cutQuery(next, extra), true);
  const now = () => new Date().toISOString();
  const onValid = (value: string) => {
    const validAt = fromInputValue(value);
    if (validAt === undefined) return;
    go(mode === 'as-recorded' ? { validAt, recordedAt: validAt } : { ...cut, validAt });
  };
  const onRecorded = (value: string) => {
    if (value === '') return go({ ...cut, recordedAt: undefined });
    const recordedAt = fromInputValue(value);
    if (recordedAt !== undefined) go({ ...cut, recordedAt });
  };
  const anyValid = cut.validAt === '*';
  return (
    <fieldset class="cut">
      <legend>Time cut</legend>
      <div class="cut-row">
        <label>
          Valid time (UTC)
          <input
            type="datetime-local"
            step={1}
            name="validAt"
            value={toInputValue(cut.validAt)}
            disabled={anyValid}
            onInput={(e) => onValid(e.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="anyValid"
            checked={anyValid}
            onChange={(e) => go({ ...cut, validAt: e.currentTarget.checked ? '*' : (cut.recordedAt ?? now()) })}
          />
          any valid time (*)
        </label>
        <label>
          Record time (UTC, empty = now)
          <input
            type="datetime-local"
            step={1}
            name="recordedAt"
            value={toInputValue(cut.recordedAt)}
            onInput={(e) => onRecorded(e.currentTarget.value)}
          />
        </label>
      </div>
      <div class="cut-row" role="group" aria-label="Named cuts">
        <button
          type="button"
          aria-pressed={mode === 'as-world'}
          title="What is, by today's knowledge, true at the valid time"
          onClick={() => go({ validAt: cut.validAt === '*' || cut.validAt === undefined ? now() : cut.validAt, recordedAt: undefined })}
        >
          As-World
        </button>
        <button
          type="button"
          aria-pressed={mode === 'as-recorded'}
          title="What the memory believed at the valid time, about that time"
          onClick={() => {
            const t = cut.validAt !== undefined && cut.validAt !== '*' ? cut.validAt : (cut.recordedAt ?? now());
            go({ validAt: t, recordedAt: t });
          }}
        >
          As-Recorded
        </button>
        <button type="button" onClick={() => go({ validAt: undefined, recordedAt: undefined })}>
          Now
        </button>
        <output class="cut-name" aria-live="polite" data-testid="cut-name">
          {describeCut(cut)}
        </output>
      </div>
    </fieldset>
  );
}
