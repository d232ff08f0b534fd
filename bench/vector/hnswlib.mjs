// bench/vector/hnswlib.mjs: hnswlib-node on the dataset that vecbench -dump
// wrote, with the same protocol as vecbench: single-threaded build with
// M 16 / efConstruction 200 (inner product on the L2-normalised vectors, which
// ranks like COSINE), then one query at a time, 50 warm-up queries, 1,000
// timed queries per ef; recall@k against the dumped exact top-100. Prints one
// JSON object.
//
//   NODE_PATH=/tmp/hnsw/node_modules node bench/vector/hnswlib.mjs DIR [ef10list] [ef100list]
//
// DIR holds meta.json, data.f32, queries.f32, truth.i32 (vecbench -dump DIR).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
// Resolved from NODE_PATH (run.sh points it at the out-of-repo install).
const { HierarchicalNSW } = require('hnswlib-node');
const version = require('hnswlib-node/package.json').version;

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node hnswlib.mjs DIR [ef list for k=10] [ef list for k=100]');
  process.exit(2);
}
const efs10 = (process.argv[3] ?? '16,32,64,128').split(',').filter(Boolean).map(Number);
const efs100 = (process.argv[4] ?? '100,200').split(',').filter(Boolean).map(Number);
const M = 16, EFC = 200, SEED = 100, WARMUP = 50;

const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
const { n, dim, truth_k: tk } = meta;
const nq = meta.queries;

function f32(file, count) {
  const b = readFileSync(join(dir, file));
  if (b.length !== count * 4) throw new Error(`${file}: ${b.length} bytes, want ${count * 4}`);
  const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.length); // aligned copy
  return new Float32Array(ab);
}
function i32(file, count) {
  const b = readFileSync(join(dir, file));
  if (b.length !== count * 4) throw new Error(`${file}: ${b.length} bytes, want ${count * 4}`);
  return new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}
const data = f32('data.f32', n * dim);
const queries = f32('queries.f32', nq * dim);
const truth = i32('truth.i32', nq * tk);
// hnswlib-node 3.0.0 takes plain arrays only; convert queries before timing.
const qs = [];
for (let q = 0; q < nq; q++) qs.push(Array.from(queries.subarray(q * dim, (q + 1) * dim)));

global.gc?.();
const rss0 = process.memoryUsage().rss;
const index = new HierarchicalNSW('ip', dim);
index.initIndex(n, M, EFC, SEED);
// The per-point Float32Array → Array conversion (~1 µs) is inside the timed
// loop; an insert costs milliseconds.
let t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) {
  index.addPoint(Array.from(data.subarray(i * dim, (i + 1) * dim)), i);
}
const buildS = Number(process.hrtime.bigint() - t0) / 1e9;
global.gc?.();
const rss1 = process.memoryUsage().rss;

function run(k, ef) {
  index.setEf(ef);
  for (let i = 0; i < WARMUP; i++) index.searchKnn(qs[i % nq], k);
  let sum = 0;
  const t = process.hrtime.bigint();
  for (let q = 0; q < nq; q++) {
    const res = index.searchKnn(qs[q], k);
    const want = new Set(truth.subarray(q * tk, q * tk + k));
    let hit = 0;
    for (const id of res.neighbors) if (want.has(id)) hit++;
    sum += hit / k;
  }
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  return { k, ef, recall: sum / nq, qps: nq / s, us_per_query: (s * 1e6) / nq };
}
const curve = [];
for (const ef of efs10) curve.push(run(10, ef));
for (const ef of efs100) curve.push(run(100, ef));

console.log(JSON.stringify({
  library: `hnswlib-node ${version}`, space: 'ip', n, dim, queries: nq, M, efConstruction: EFC,
  build_s: buildS, inserts_per_s: n / buildS, index_rss_mb: (rss1 - rss0) / 1e6,
  raw_f32_mb: (n * dim * 4) / 1e6, node: process.version, search: curve,
}, null, 2));
