import * as fs from 'fs';
import { analyzeManifests } from './src/check/analyze';
import { ZoneInventory } from './src/check/inventory';
import { parseManifests } from './src/check/manifest-text';
const file = process.argv[2];
const objects = parseManifests(file, fs.readFileSync(file, 'utf8')).map((o) => o.value);
const data = analyzeManifests(objects, new ZoneInventory({ zones: ['zone-a', 'zone-b', 'zone-c'], nodesPerZone: 3 }));
for (const w of data.workloads) {
  console.log(`${w.kind}/${w.namespace ?? '-'}/${w.name} replicas ${w.replicas} survives ${JSON.stringify(w.survives)} perZone ${JSON.stringify(w.perZone)}`);
  console.log(`   needed ${w.needed}: ${w.neededBecause}`);
  for (const f of w.findings) console.log(`   ${f.severity} ${f.rule}: ${f.message}`);
}
for (const f of data.findings) console.log(`input ${f.rule}: ${f.message}`);
