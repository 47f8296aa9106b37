#!/usr/bin/env -S npx tsx
import { run } from './cli';

run(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    process.stderr.write(`memotrace: ${error.message}\n`);
    process.exitCode = 1;
  },
);
