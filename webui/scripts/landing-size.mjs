// Gzips the JavaScript the landing route (/) loads on first paint and compares it with the 200 KB target.
// The entry chunk and its static imports come from Vite's manifest; lazy (dynamic) imports are left out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const TARGET_BYTES = 200 * 1024;
const dist = new URL('../dist/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));

const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
if (!entryKey) throw new Error('no entry in dist/.vite/manifest.json; run npm run build first');

const files = new Set();
const visit = (key) => {
  const chunk = manifest[key];
  if (!chunk || files.has(chunk.file)) return;
  files.add(chunk.file);
  for (const imported of chunk.imports ?? []) visit(imported);
};
visit(entryKey);

let total = 0;
for (const file of [...files].filter((name) => name.endsWith('.js'))) {
  const gzipped = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  total += gzipped;
  console.log(`${(gzipped / 1024).toFixed(1).padStart(8)} KB  ${file}`);
}
const verdict = total <= TARGET_BYTES ? 'OK' : 'OVER';
console.log(`${(total / 1024).toFixed(1).padStart(8)} KB  landing JS total (gzip), target 200 KB: ${verdict}`);
if (total > TARGET_BYTES) process.exit(1);
