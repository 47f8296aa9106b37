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

describe('SET_TIER_POLICY', () => {
  it("sets the memory's tier policy; the same policy again is unchanged; both null: the memory never cools", () => {
    const s = given();
    const { records } = s.when({ op: 'SET_TIER_POLICY', coldAfter: 'P30D', salienceFloor: 0.3, recordedAt: at('MON') });
    expect(bare(records)).toEqual([{ type: 'TierPolicySet', data: { coldAfter: 'P30D', salienceFloor: 0.3 } }]);
    expect(s.state.tierPolicy).toEqual({ coldAfter: 'P30D', salienceFloor: 0.3 });
    expect(s.when({ op: 'SET_TIER_POLICY', coldAfter: 'P30D', salienceFloor: 0.3, recordedAt: at('TUE') }).results[0]!.status).toBe('unchanged');
    s.when({ op: 'SET_TIER_POLICY', coldAfter: null, salienceFloor: null, recordedAt: at('WED') });
    expect(s.state.tierPolicy).toBeNull();
    expect(fold(s.log, at('TUE')).tierPolicy).toEqual({ coldAfter: 'P30D', salienceFloor: 0.3 });
    const copy = given(commandsOfLog(s.log));
    expect(copy.state.tierPolicy).toBeNull();
    expect(commandsOfLog(s.log).map((c) => c.op)).toEqual(['SET_TIER_POLICY', 'SET_TIER_POLICY', 'SET_TIER_POLICY']);
  });
});
