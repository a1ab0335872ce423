// Runs @rapideditor/country-coder on the point sets boundary-bench wrote and
// compares its answers with regloc's.  See README.md.
//
//   node bench/country-coder-bench.mjs OUTDIR
import { readFileSync } from 'node:fs';
import { iso1A2Code } from '@rapideditor/country-coder';

const dir = process.argv[2] ?? 'bench/out';

function readPoints(name) {
  return readFileSync(`${dir}/${name}.points`, 'utf8').trim().split('\n').map((l) => {
    const [lat, lon] = l.split(' ').map(Number);
    return [lon, lat];
  });
}

function readRegloc(name) {
  return readFileSync(`${dir}/${name}.regloc`, 'utf8').trim().split('\n').map((l) => {
    const [cc, m] = l.split('\t');
    return { cc, m: Number(m) };
  });
}

function run(name) {
  const pts = readPoints(name);
  const ours = readRegloc(name);
  const opts = { level: 'territory' };
  const answers = new Array(pts.length);
  // Warm up the JIT and country-coder's lazy index, then time one pass.
  for (let i = 0; i < Math.min(20000, pts.length); i++) iso1A2Code(pts[i], opts);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < pts.length; i++) answers[i] = iso1A2Code(pts[i], opts) ?? '--';
  const ns = Number(process.hrtime.bigint() - t0) / pts.length;

  let agreeFar = 0, far = 0, agreeNear = 0, near = 0;
  const pairs = new Map();
  for (let i = 0; i < pts.length; i++) {
    const isFar = ours[i].m > 1000;
    const same = ours[i].cc === answers[i];
    if (isFar) { far++; if (same) agreeFar++; } else { near++; if (same) agreeNear++; }
    if (!same) {
      const key = `${ours[i].cc}/${answers[i]}${isFar ? '' : ' (<1 km)'}`;
      pairs.set(key, (pairs.get(key) ?? 0) + 1);
    }
  }
  const pct = (a, b) => (b ? (100 * a / b).toFixed(3) : 'n/a');
  console.log(`${name}: ${pts.length} points, country-coder ${ns.toFixed(0)} ns/lookup`);
  console.log(`  agreement > 1 km from a border: ${pct(agreeFar, far)} % of ${far}`);
  console.log(`  agreement <= 1 km from a border: ${pct(agreeNear, near)} % of ${near}`);
  console.log('  disagreements (regloc/country-coder: count):');
  [...pairs.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)
    .forEach(([k, v]) => console.log(`    ${k}: ${v}`));
}

run('uniform');
try { run('near'); } catch (e) { if (e.code !== 'ENOENT') throw e; }
