import type { SetExtractionGate } from '../commands';
import { type DecideContext, type Decision, unchanged } from './context';

/** The memory's extraction gate from now on; the gate it has already changes nothing. */
export function decideSetExtractionGate(command: SetExtractionGate, { state }: DecideContext): Decision {
  if (state.extractionGate === command.gate) return unchanged({});
  return { records: [{ type: 'ExtractionGateSet', data: { gate: command.gate } }], ids: {} };
}
