#!/usr/bin/env node
import { EXIT } from './exit-codes';
import { processIo } from './io';
import { runCli } from './run-cli';

/** `wrs`: the Workload Run Service on the command line (see `wrs --help`). */
runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    // runCli reports every failure, through its last resort (stderr) when printing failed; this is
    // reached only when stderr refused that line too, so there is nowhere left to print it.
    process.exitCode = EXIT.unexpected;
  },
);
