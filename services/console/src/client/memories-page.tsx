import type { MemoriesResponse } from '@memotrace/contracts';
import { formatInstant } from './cut';
import { Link, Loading, Section, Table, consolePath, count, useApi } from './ui';

/** `/console`: the memories this key may read, with their sizes (log positions) and latest record times. */
export function MemoriesPage() {
  const state = useApi((get) => get<MemoriesResponse>('/v1/memories'), []);
  return (
    <Section title="Memories" id="memories">
      <Loading state={state}>
        {({ memories }) =>
          memories.length === 0 ? (
            <p>No memory this key may read holds anything yet.</p>
          ) : (
            <Table
              columns={['Memory', { name: 'Size (log records)', class: 'num' }, 'Latest record time', 'Open at']}
              caption={<>{count(memories.length, 'memory', 'memories')}; the size is the memory&apos;s log length (its position)</>}
            >
              {memories.map((m) => (
                <tr key={m.memoryId}>
                  <th scope="row">
                    <Link href={consolePath(m.memoryId)}>{m.memoryId}</Link>
                  </th>
                  <td class="num">{m.position}</td>
                  <td>{formatInstant(m.latestRecordedAt)}</td>
                  <td>
                    <Link href={consolePath(m.memoryId, `?validAt=${m.latestRecordedAt}&recordedAt=${m.latestRecordedAt}`)}>
                      As-Recorded at its latest record
                    </Link>
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loading>
    </Section>
  );
}
