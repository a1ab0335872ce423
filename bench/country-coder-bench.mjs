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

  // Buckets: > 1 km from any border (regloc's border_m, which also counts
  // the edge of the territorial sea) or not; and whether regloc places the
  // point in a country (land or 12 nm waters) or at sea.
  const buckets = {};
  for (let i = 0; i < pts.length; i++) {
    const isFar = ours[i].m > 1000;
    const where = ours[i].cc === '--' ? 'at sea (regloc)' : 'in a country (regloc)';
    const key = `${isFar ? '> 1 km' : '<= 1 km'} from a border, ${where}`;
    const b = (buckets[key] ??= { n: 0, same: 0, pairs: new Map() });
    b.n++;
    if (ours[i].cc === answers[i]) b.same++;
    else {
      const pk = `${ours[i].cc}/${answers[i]}`;
      b.pairs.set(pk, (b.pairs.get(pk) ?? 0) + 1);
    }
  }
  const pct = (a, b) => (b ? (100 * a / b).toFixed(3) : 'n/a');
  console.log(`${name}: ${pts.length} points, country-coder ${ns.toFixed(0)} ns/lookup`);
  for (const [k, b] of Object.entries(buckets).sort()) {
    console.log(`  agreement ${k}: ${pct(b.same, b.n)} % of ${b.n}`);
    const top = [...b.pairs.entries()].sort((x, y) => y[1] - x[1]).slice(0, 25);
    if (top.length)
      console.log(`    disagreements regloc/country-coder: ${top.map(([p, c]) => `${p} ${c}`).join(', ')}`);
  }
}

run('uniform');
try { run('near'); } catch (e) { if (e.code !== 'ENOENT') throw e; }
