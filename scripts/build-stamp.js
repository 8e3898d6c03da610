#!/usr/bin/env node
// The last step of `npm run build`: dist/.build-stamp marks when the build finished, so that
// `npm start` (scripts/start.js) rebuilds only when a source is newer.
import { writeFileSync } from 'node:fs';

writeFileSync('dist/.build-stamp', `${new Date().toISOString()}\n`);
