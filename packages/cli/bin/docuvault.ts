#!/usr/bin/env node
import { main } from '../src/main.ts';

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
