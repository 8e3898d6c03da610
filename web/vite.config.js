// Builds the operator console (web/) into dist/web: `npm run build` runs it after the server's tsc.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const outDir = new URL('../dist/web/', import.meta.url).pathname;

/** Writes `.gz` and `.br` beside each text asset, so the server sends them compressed without compressing per request. */
function precompress() {
  return {
    name: 'firmledger-precompress',
    apply: 'build',
    closeBundle() {
      const assets = join(outDir, 'assets');
      for (const file of readdirSync(assets)) {
        if (!/\.(js|css|svg)$/.test(file)) continue;
        const bytes = readFileSync(join(assets, file));
        writeFileSync(join(assets, `${file}.gz`), gzipSync(bytes, { level: 9 }));
        writeFileSync(join(assets, `${file}.br`), brotliCompressSync(bytes));
      }
    },
  };
}

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  // Relative asset URLs: the server adds <base href> of the operator base URL's path to the page.
  base: './',
  plugins: [react(), precompress()],
  // The import aliases of web/tsconfig.json "paths": `#web/*` is web/src, `#src/*` the server's sources.
  resolve: {
    alias: [
      { find: /^#web\//, replacement: new URL('./src/', import.meta.url).pathname },
      { find: /^#src\//, replacement: new URL('../src/', import.meta.url).pathname },
    ],
  },
  logLevel: 'warn',
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    // Every asset is a hashed file the server caches as immutable; nothing is inlined into the page (CSP: 'self' only).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
});
