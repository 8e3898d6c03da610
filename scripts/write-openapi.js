#!/usr/bin/env node
// `npm run openapi`: writes openapi/<component>.json from the compiled code (run after a build).
// The drift spec (src/app/openapi/openapi-drift.spec.ts) fails while these files differ from the code.
import { writeOpenApiFiles } from '#src/app/openapi/openapi-files.js';

for (const path of await writeOpenApiFiles()) console.log(`wrote ${path}`);
