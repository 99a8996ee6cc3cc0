#!/usr/bin/env node
import { EXIT } from './exit-codes';
import { processIo } from './io';
import { runCli, unexpectedErrorLine } from './run-cli';

/** `wrs`: the Workload Run Service on the command line (see `wrs --help`). */
runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // runCli prints and returns every error it catches; this is only reached when printing itself failed.
    process.stderr.write(`${unexpectedErrorLine(error, process.env['WRS_TOKEN'])}\n`);
    process.exitCode = EXIT.unexpected;
  },
);
