import { contractTypeNames, printContractTypes } from './contract-types';

describe('the contract types of the packed client', () => {
  it('are the types its sources import or re-export from the contracts', () => {
    const names = contractTypeNames([
      { file: 'a.ts', text: "import type { FactsResponse, ErrorCode as Code } from '@memotrace/contracts';\nimport { z } from 'zod';" },
      { file: 'b.ts', text: "import { type SearchItem } from '@memotrace/contracts';\nexport type { FactVersion } from '@memotrace/contracts';" },
    ]);
    expect(names).toEqual(['ErrorCode', 'FactVersion', 'FactsResponse', 'SearchItem']);
  });

  it('refuse a value import: the packed client would load the contracts at run time', () => {
    expect(() => contractTypeNames([{ file: 'a.ts', text: "import { wireCommand } from '@memotrace/contracts';" }])).toThrow(/as a value/);
    expect(() => contractTypeNames([{ file: 'a.ts', text: "import { type X, wireCommand } from '@memotrace/contracts';" }])).toThrow(/wireCommand/);
    expect(() => contractTypeNames([{ file: 'a.ts', text: "export * from '@memotrace/contracts';" }])).toThrow(/as a value/);
  });

  it('are printed in full, with no zod and no import left', () => {
    const text = printContractTypes(['ErrorCode', 'FactVersion']);
    expect(text).toContain('export type FactVersion = {');
    expect(text).toMatch(/export type ErrorCode = "INVALID_REQUEST" \|/);
    expect(text).toContain('validTo: string | null;');
    expect(text).not.toMatch(/zod|Zod|import/);
    expect(() => printContractTypes(['NoSuchType'])).toThrow(/exports no NoSuchType/);
    expect(() => printContractTypes(['wireCommand'])).toThrow(/not a type/);
  });
});
