#!/usr/bin/env node
// The latchkey binary: serves the default distribution (flags: latchkey --help).
import '../transports/cli/main.js';
