#!/usr/bin/env node
// The latchkey binary: TypeScript sources run through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../transports/cli/main.ts');
