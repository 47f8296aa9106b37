import type { SetExtractionGate, SetTierPolicy } from '../commands';
import { type DecideContext, type Decision, unchanged } from './context';

/** The memory's extraction gate from now on; the gate it has already changes nothing. */
export function decideSetExtractionGate(command: SetExtractionGate, { state }: DecideContext): Decision {
  if (state.extractionGate === command.gate) return unchanged({});
  return { records: [{ type: 'ExtractionGateSet', data: { gate: command.gate } }], ids: {} };
}

/** The memory's tier policy from now on (SPEC §5.4); the policy it has already changes nothing. */
export function decideSetTierPolicy(command: SetTierPolicy, { state }: DecideContext): Decision {
  const { coldAfter, salienceFloor } = command;
  const current = state.tierPolicy ?? { coldAfter: null, salienceFloor: null };
  if (current.coldAfter === coldAfter && current.salienceFloor === salienceFloor) return unchanged({});
  return { records: [{ type: 'TierPolicySet', data: { coldAfter, salienceFloor } }], ids: {} };
}
