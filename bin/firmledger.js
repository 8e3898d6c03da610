#!/usr/bin/env node
// The `firmledger` CLI; `npm run build` (or `npm ci`, via prepare) compiles it to dist/.
import '../dist/src/cli/main.js';
