import { commandsOfLog } from '../export';
import { fold } from '../evolve';
import { at, bare, given } from '../testing/given';

describe('SET_EXTRACTION_GATE', () => {
  it("sets the memory's gate, folded into its state; the same gate again is unchanged; null returns to the default", () => {
    const s = given();
    const { records, results } = s.when({ op: 'SET_EXTRACTION_GATE', gate: 0.7, recordedAt: at('MON') });
    expect(bare(records)).toEqual([{ type: 'ExtractionGateSet', data: { gate: 0.7 } }]);
    expect(results[0]).toMatchObject({ status: 'applied', ids: {} });
    expect(s.state.extractionGate).toBe(0.7);
    expect(s.when({ op: 'SET_EXTRACTION_GATE', gate: 0.7, recordedAt: at('TUE') }).results[0]!.status).toBe('unchanged');
    s.when({ op: 'SET_EXTRACTION_GATE', gate: null, recordedAt: at('WED') });
    expect(s.state.extractionGate).toBeNull();
    // Replay reads it from the log, as of each record time.
    expect(fold(s.log, at('TUE')).extractionGate).toBe(0.7);
    expect(fold(s.log).extractionGate).toBeNull();
  });

  it('is exported as the command that set it, so an import decides the same gate', () => {
    const s = given([{ op: 'SET_EXTRACTION_GATE', gate: 0.25, recordedAt: at('MON') }]);
    const exported = commandsOfLog(s.log);
    expect(exported).toEqual([{ op: 'SET_EXTRACTION_GATE', gate: 0.25, commandId: 'cmd-1', recordedAt: at('MON') }]);
    const copy = given(exported);
    expect(copy.state.extractionGate).toBe(0.25);
  });
});
