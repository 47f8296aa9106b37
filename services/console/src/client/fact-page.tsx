import type { AuditResponse, FactVersion, HistoryResponse } from '@memotrace/contracts';
import { memoryPath } from './api';
import { type Cut, cutQuery, formatInstant } from './cut';
import { layoutDiagram } from './diagram';
import { interval } from './memory-page';
import { BackToMemory, Link, Loading, Section, Table, TierBadge, consolePath, useApi } from './ui';

function dstText(version: FactVersion): string {
  if (typeof version.dst === 'string') return version.dst;
  return JSON.stringify(version.dst.literal);
}

function inCut(v: FactVersion, cut: Cut): boolean {
  const recordedAt = cut.recordedAt ?? new Date().toISOString();
  const validAt = cut.validAt ?? new Date().toISOString();
  const recorded =
    Date.parse(v.recordedFrom) <= Date.parse(recordedAt) && (v.recordedTo === null || Date.parse(recordedAt) < Date.parse(v.recordedTo));
  const valid =
    validAt === '*' || (Date.parse(v.validFrom) <= Date.parse(validAt) && (v.validTo === null || Date.parse(validAt) < Date.parse(v.validTo)));
  return recorded && valid;
}

/**
 * The classic bitemporal diagram: valid time across, record time up, one rectangle per version.
 * An open end (still valid, still believed) runs to the plot's edge, drawn dashed there; the page's cut is
 * the crossing of the dashed lines. Every rectangle has a title, and the table below says the same in text.
 */
export function BitemporalDiagram({ versions, cut }: { versions: readonly FactVersion[]; cut: Cut }) {
  const layout = layoutDiagram(versions, cut);
  const { plot } = layout;
  return (
    <figure class="diagram">
      <svg
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        role="img"
        aria-labelledby="diagram-title diagram-desc"
        data-testid="bitemporal-diagram"
        preserveAspectRatio="xMinYMin meet"
      >
        <title id="diagram-title">Bitemporal diagram of {versions.length} versions</title>
        <desc id="diagram-desc">
          Valid time runs across, record time runs up. Each rectangle is a version: the valid interval it states and the record interval during which
          the memory believed it.
        </desc>
        <rect class="plot" x={plot.x} y={plot.y} width={plot.width} height={plot.height} />
        {layout.xTicks.map((t) => (
          <g key={`x${t.iso}`} class="tick">
            <line x1={t.at} x2={t.at} y1={plot.y} y2={plot.y + plot.height + 4} />
            <text x={t.at} y={plot.y + plot.height + 18} text-anchor="middle">
              {formatInstant(t.iso).replace(' UTC', '')}
            </text>
          </g>
        ))}
        {layout.yTicks.map((t) => (
          <g key={`y${t.iso}`} class="tick">
            <line x1={plot.x - 4} x2={plot.x + plot.width} y1={t.at} y2={t.at} />
            <text x={plot.x - 8} y={t.at + 4} text-anchor="end">
              {formatInstant(t.iso).replace(' UTC', '')}
            </text>
          </g>
        ))}
        <text class="axis" x={plot.x + plot.width / 2} y={layout.height - 8} text-anchor="middle">
          valid time (UTC) →
        </text>
        <text class="axis" x={14} y={plot.y + plot.height / 2} text-anchor="middle" transform={`rotate(-90 14 ${plot.y + plot.height / 2})`}>
          record time (UTC) →
        </text>
        {layout.rects.map((r, i) => {
          const v = versions[i]!;
          const current = inCut(v, cut);
          return (
            <g key={i} class={`version${current ? ' in-cut' : ''}`}>
              <rect x={r.x} y={r.y} width={r.width} height={r.height} data-version={i + 1} data-open-right={r.openRight} data-open-top={r.openTop}>
                <title>
                  Version {i + 1}: {v.rel} {dstText(v)}, valid {interval(v.validFrom, v.validTo)}, recorded {interval(v.recordedFrom, v.recordedTo)}
                </title>
              </rect>
              {r.openRight ? <line class="open-end" x1={r.x + r.width} x2={r.x + r.width} y1={r.y} y2={r.y + r.height} /> : null}
              {r.openTop ? <line class="open-end" x1={r.x} x2={r.x + r.width} y1={r.y} y2={r.y} /> : null}
              <text x={r.x + 6} y={r.y + r.height - 6} class="version-label">
                v{i + 1} {dstText(v)}
                {r.openRight ? ' →' : ''}
                {r.openTop ? ' ↑' : ''}
              </text>
            </g>
          );
        })}
        {layout.cut.x !== undefined ? <line class="cut-line" x1={layout.cut.x} x2={layout.cut.x} y1={plot.y} y2={plot.y + plot.height} /> : null}
        {layout.cut.y !== undefined ? <line class="cut-line" x1={plot.x} x2={plot.x + plot.width} y1={layout.cut.y} y2={layout.cut.y} /> : null}
      </svg>
      <figcaption>
        Valid time across, record time up; → and ↑ mark open ends (still valid, still believed). Dashed lines: this page&apos;s cut; the highlighted
        version is the one in it.
      </figcaption>
    </figure>
  );
}

/** `/console/memories/{memoryId}/facts/{factId}`: the versions of a fact (diagram and table) and its audit stream. */
export function FactPage({ memoryId, factId, cut }: { memoryId: string; factId: string; cut: Cut }) {
  const state = useApi(
    async (get) => {
      const base = memoryPath(memoryId, `/facts/${encodeURIComponent(factId)}`);
      const [history, audit] = await Promise.all([get<HistoryResponse>(`${base}/history`), get<AuditResponse>(`${base}/audit`)]);
      return { history, audit };
    },
    [memoryId, factId],
  );
  return (
    <>
      <h1>
        Fact <span class="id">{factId}</span>
      </h1>
      <BackToMemory memoryId={memoryId} cut={cut} label="This fact" />
      <Loading state={state}>
        {({ history, audit }) => (
          <>
            <Section title="Versions: what was believed when, about when" id="versions">
              <BitemporalDiagram versions={history.versions} cut={cut} />
              <Table
                columns={['#', 'Statement', 'Valid', 'Recorded', 'Confidence', 'Evidence', 'Source']}
                caption={<>{history.versions.length} versions, in the order the log made them</>}
                data-testid="history"
              >
                {history.versions.map((v, i) => (
                  <tr key={i} class={inCut(v, cut) ? 'in-cut' : undefined}>
                    <td>
                      v{i + 1}
                      <TierBadge tier={v.tier} />
                    </td>
                    <td>
                      {v.src} <span class="rel">{v.rel}</span> {dstText(v)}
                    </td>
                    <td>{interval(v.validFrom, v.validTo)}</td>
                    <td>{interval(v.recordedFrom, v.recordedTo)}</td>
                    <td>{v.confidence ?? '—'}</td>
                    <td>
                      {v.evidence.map((mentionId) => (
                        <Link key={mentionId} class="id" href={consolePath(memoryId, `/mentions/${encodeURIComponent(mentionId)}${cutQuery(cut)}`)}>
                          {mentionId}
                        </Link>
                      ))}
                    </td>
                    <td>{v.source ?? '—'}</td>
                  </tr>
                ))}
              </Table>
            </Section>
            <Section title="Audit: every log record that touched it, with who and why" id="audit">
              <Table columns={[{ name: 'Position', class: 'num' }, 'Event', 'Recorded', 'Actor', 'Reason', 'Command']} data-testid="audit">
                {audit.events.map((e) => (
                  <tr key={e.position}>
                    <td class="num">{e.position}</td>
                    <td>{e.type}</td>
                    <td>{formatInstant(e.recordedAt)}</td>
                    <td>{e.actor ?? '—'}</td>
                    <td>{e.reason ?? '—'}</td>
                    <td class="id">{e.commandId}</td>
                  </tr>
                ))}
              </Table>
            </Section>
          </>
        )}
      </Loading>
    </>
  );
}
