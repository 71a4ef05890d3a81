#!/usr/bin/env node
// The `gcb` command (package.json "bin"). The sources are TypeScript run through tsx, as everywhere
// in this project: register its loader, then hand over to src/cli/gcb.ts.
import { register } from 'tsx/esm/api';

register();
const { runGcb } = await import('../src/cli/gcb.ts');
const code = await runGcb(process.argv.slice(2));
// serve and mcp keep running (undefined); everything else ends once its output is flushed.
if (code !== undefined) process.exitCode = code;
