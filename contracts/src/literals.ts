import { z } from 'zod';
import { parseInstant, text } from './primitives';

/**
 * UPSERT_EDGE `dst` literals: `{literal, datatype?}`. The datatype is inferred from
 * the JSON type when omitted; the value must match its datatype; instant literals
 * are canonicalised. The output always carries `datatype`.
 */
export const literalDatatype = z.enum(['string', 'number', 'boolean', 'instant']);

const literalValue = z.union([z.string(), z.number(), z.boolean()]);

/**
 * A typed literal (the domain's `Literal`). The value/datatype match is checked here at run time
 * but not carried in the type: literals are also rebuilt from stored fields (`{literal, datatype}`).
 */
export type TypedLiteral = { literal: z.output<typeof literalValue>; datatype: z.output<typeof literalDatatype> };

export const literalTarget = z
  .strictObject({
    literal: literalValue,
    datatype: literalDatatype.optional(),
  })
  .transform((v, ctx): TypedLiteral => {
    const datatype = v.datatype ?? (typeof v.literal as 'string' | 'number' | 'boolean');
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message, path: ['literal'], input: v.literal });
      return z.NEVER;
    };
    switch (datatype) {
      case 'string': {
        if (typeof v.literal !== 'string') return fail('must be a string (datatype "string")');
        const r = text.safeParse(v.literal);
        if (!r.success) return fail(r.error.issues[0]?.message ?? 'invalid text');
        return { literal: v.literal, datatype };
      }
      case 'number':
        if (typeof v.literal !== 'number') return fail('must be a number (datatype "number")');
        return { literal: v.literal, datatype };
      case 'boolean':
        if (typeof v.literal !== 'boolean') return fail('must be a boolean (datatype "boolean")');
        return { literal: v.literal, datatype };
      case 'instant': {
        if (typeof v.literal !== 'string') return fail('must be an instant string (datatype "instant")');
        const r = parseInstant(v.literal);
        if (!r.ok) return fail(r.message);
        return { literal: r.value, datatype };
      }
    }
  });
