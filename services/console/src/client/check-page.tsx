import type { CheckResponse } from '@memotrace/contracts';
import { useState } from 'preact/hooks';
import { memoryPath } from './api';
import { type Cut, cutQuery, formatInstant } from './cut';
import { CutControls } from './cut-controls';
import { BackToMemory, Link, Loading, Section, TierBadge, consolePath, navigate, useApi } from './ui';

/** What each verdict tells someone about to say the claim. */
const MEANING: Record<CheckResponse['verdicts'][number]['verdict'], string> = {
  supported: 'the memory holds it at this cut',
  contradicted: 'a relation with one value at a time holds another value',
  outdated: 'it held, but had ended by the valid time',
  not_yet_valid: 'it starts after the valid time',
  retracted: 'the memory believed it once and no longer does',
  unknown: 'the memory says nothing of it',
};

const shown = (dst: unknown) =>
  typeof dst === 'object' && dst !== null && 'literal' in dst ? JSON.stringify((dst as { literal: unknown }).literal) : String(dst);

/**
 * `/console/memories/{memoryId}/check?text=&speaker=&validAt=&recordedAt=`: paste a text (an agent's draft answer), see
 * the claims the memory reads in it, each with its verdict at the cut and the fact versions it rests on, linked to their
 * diagrams (SPEC 5.3).
 */
export function CheckPage({ memoryId, search, cut }: { memoryId: string; search: string; cut: Cut }) {
  const params = new URLSearchParams(search);
  const text = params.get('text') ?? '';
  const speaker = params.get('speaker') ?? '';
  const [draft, setDraft] = useState({ text, speaker });
  const state = useApi(
    async (get) =>
      text.trim() === ''
        ? undefined
        : get<CheckResponse>(memoryPath(memoryId, '/check'), {
            body: {
              text,
              ...(speaker.trim() === '' ? {} : { speaker }),
              ...(cut.validAt === undefined ? {} : { validAt: cut.validAt }),
              ...(cut.recordedAt === undefined ? {} : { recordedAt: cut.recordedAt }),
            },
          }),
    [memoryId, text, speaker, cut.validAt, cut.recordedAt],
  );
  const submit = (event: Event) => {
    event.preventDefault();
    navigate(location.pathname + cutQuery(cut, { text: draft.text, speaker: draft.speaker }));
  };
  return (
    <>
      <h1>
        Check <span class="id">{memoryId}</span>
      </h1>
      <BackToMemory memoryId={memoryId} cut={cut} />
      <form class="search" onSubmit={submit}>
        <label class="grow">
          Text to check
          <textarea name="text" required rows={3} value={draft.text} onInput={(e) => setDraft({ ...draft, text: e.currentTarget.value })} />
        </label>
        <label>
          Speaker ("I")
          <input name="speaker" placeholder="none" value={draft.speaker} onInput={(e) => setDraft({ ...draft, speaker: e.currentTarget.value })} />
        </label>
        <button type="submit">Check</button>
      </form>
      <CutControls cut={cut} extra={{ text, speaker }} />
      <Loading state={state}>
        {(answer) =>
          answer === undefined ? (
            <p class="muted">Paste what an agent is about to say: each claim in it is checked at the cut (default: now, now).</p>
          ) : (
            <Section title="Verdicts" id="verdicts">
              <p data-testid="check-summary">
                {answer.verdicts.length === 0 ? 'No claim in the text' : `${answer.verdicts.length} claims`},{' '}
                {`cut valid ${formatInstant(answer.cut.validAt)}, recorded ${formatInstant(answer.cut.recordedAt)}`}.
              </p>
              <ol class="results">
                {answer.verdicts.map(({ claim, verdict, facts }, i) => (
                  <li key={i} data-verdict={verdict}>
                    <div class="result-head">
                      <span class={`badge verdict ${verdict}`}>{verdict.replaceAll('_', ' ')}</span> <span class="id">{claim.src}</span>{' '}
                      <span class="rel">{claim.rel}</span> <span class="id">{shown(claim.dst)}</span>
                      {claim.validAt === undefined ? null : <span class="muted"> at {formatInstant(claim.validAt)}</span>}
                    </div>
                    <p class="muted">{MEANING[verdict]}</p>
                    {facts.length > 0 ? (
                      <p class="evidence">
                        Rests on:{' '}
                        {facts.map((f) => (
                          <Link
                            key={`${f.factId}@${f.recordedFrom}`}
                            href={consolePath(memoryId, `/facts/${encodeURIComponent(f.factId)}${cutQuery(cut)}`)}
                            class="id"
                          >
                            {f.factId} ({shown(f.dst)}, valid {formatInstant(f.validFrom)} – {formatInstant(f.validTo)})
                            <TierBadge tier={f.tier} />
                          </Link>
                        ))}
                      </p>
                    ) : null}
                  </li>
                ))}
              </ol>
            </Section>
          )
        }
      </Loading>
    </>
  );
}
