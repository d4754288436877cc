// Runs after `vite build`: writes NAME.br and NAME.gz beside every hashed asset (and index.html) in dist/, so the
// control plane (controlplane/webui.py) and nginx (packaging/nginx-vpn.conf, gzip_static/brotli_static) send
// compressed bytes without compressing on each request. Small files are left alone: a header costs more.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const MIN_BYTES = 1024;
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|map|webmanifest)$/;
const dist = new URL('../dist/', import.meta.url).pathname;

const files = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? (name === '.vite' ? [] : files(path)) : [path];
  });

let raw = 0;
let brotli = 0;
for (const path of files(dist).filter((p) => COMPRESSIBLE.test(p))) {
  const data = readFileSync(path);
  if (data.length < MIN_BYTES) continue;
  const br = brotliCompressSync(data, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  });
  writeFileSync(`${path}.br`, br);
  writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
  raw += data.length;
  brotli += br.length;
}
console.log(`precompressed: ${(raw / 1024).toFixed(0)} KB -> ${(brotli / 1024).toFixed(0)} KB brotli`);
