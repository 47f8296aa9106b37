/**
 * LangGraph's search `filter` on an item's top-level fields: a plain value must equal the field (JSON values
 * compare by content), or an object of operators must all hold: `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`
 * (two numbers or two strings, else false), `$in`, `$nin` (a list of values).
 */

const OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin']);

export function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  return Object.entries(filter ?? {}).every(([field, wanted]) => matchesField(value[field], wanted));
}

function matchesField(actual: unknown, wanted: unknown): boolean {
  if (!isOperators(wanted)) return sameJson(actual, wanted);
  return Object.entries(wanted).every(([operator, operand]) => {
    switch (operator) {
      case '$eq':
        return sameJson(actual, operand);
      case '$ne':
        return !sameJson(actual, operand);
      case '$gt':
        return ordered(actual, operand, (c) => c > 0);
      case '$gte':
        return ordered(actual, operand, (c) => c >= 0);
      case '$lt':
        return ordered(actual, operand, (c) => c < 0);
      case '$lte':
        return ordered(actual, operand, (c) => c <= 0);
      case '$in':
        return Array.isArray(operand) && operand.some((v) => sameJson(actual, v));
      default: // $nin
        return Array.isArray(operand) && !operand.some((v) => sameJson(actual, v));
    }
  });
}

function isOperators(wanted: unknown): wanted is Record<string, unknown> {
  if (typeof wanted !== 'object' || wanted === null || Array.isArray(wanted)) return false;
  const keys = Object.keys(wanted);
  return keys.length > 0 && keys.every((k) => OPERATORS.has(k));
}

function ordered(actual: unknown, operand: unknown, holds: (comparison: number) => boolean): boolean {
  const bothNumbers = typeof actual === 'number' && typeof operand === 'number';
  const bothStrings = typeof actual === 'string' && typeof operand === 'string';
  if (!bothNumbers && !bothStrings) return false;
  const [a, b] = [actual, operand] as [number | string, number | string];
  return holds(a < b ? -1 : a > b ? 1 : 0);
}

/** Equal as JSON: objects by their fields whatever their order, arrays item by item. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  return aKeys.length === Object.keys(bRecord).length && aKeys.every((k) => k in bRecord && sameJson((a as Record<string, unknown>)[k], bRecord[k]));
}
