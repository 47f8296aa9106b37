import { buildOpenApiDocument } from './document';

// Prints the OpenAPI document as JSON: `npx tsx contracts/src/openapi/print.ts`.
process.stdout.write(`${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
