#!/usr/bin/env node
import { processIo } from './io';
import { runCli } from './run-cli';

/** `wrs`: the Workload Run Service on the command line (see `wrs --help`). */
runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`wrs: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 70;
  },
);
