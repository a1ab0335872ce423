// country-coder as a process, like `regloc lookup -`: "LAT LON" lines on
// stdin, one country code a line on stdout ("--" where it names none).
// Used by lookup-process-bench.sh; see README.md.
import { readFileSync, writeSync } from 'node:fs';
import { iso1A2Code } from '@rapideditor/country-coder';

const lines = readFileSync(0, 'utf8').split('\n');
const opts = { level: 'territory' };
let out = '';
for (const l of lines) {
  if (l === '') continue;
  const [lat, lon] = l.split(' ').map(Number);
  out += (iso1A2Code([lon, lat], opts) ?? '--') + '\n';
  if (out.length > 65536) {
    writeSync(1, out);
    out = '';
  }
}
writeSync(1, out);
