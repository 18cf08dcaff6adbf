#!/usr/bin/env node
// The `faultline` command. Sources are TypeScript run through tsx (no build step), so the CLI,
// `npm start` and the tests all execute the same files.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
