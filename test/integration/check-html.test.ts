/**
 * The zone check's HTML page in a real headless Chromium (the Debian package, setup.d/80-chromium.sh): the
 * page renders, the DOM Chromium built shows every workload and marks the zone whose loss breaks one, and the
 * screenshot (kept under .cache/check-html/, printed below) shows the red and green cells. No Chromium: the
 * test fails and says how to get it.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import { REPO_ROOT } from './shared';
import { workloadId } from '../../src/check/format-common';
import { formatHtml } from '../../src/check/format-html';
import { ZoneInventory } from '../../src/check/inventory';
import { ZoneReport } from '../../src/check/zone-report';

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const OUT_DIR = path.join(REPO_ROOT, '.cache', 'check-html');

const POD = {
  containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }],
};
const spread = (app: string) => ({
  topologySpreadConstraints: [{
    maxSkew: 1,
    topologyKey: 'topology.kubernetes.io/zone',
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app } },
  }],
});
const deployment = (name: string, replicas: number, extra: object = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { ...POD, ...extra } },
  },
});

/** Four workloads; `checkout` (one replica) does not survive losing the zone it may be in. */
const MANIFESTS = [
  deployment('web', 6, spread('web')),
  deployment('checkout', 1),
  {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'shop', annotations: { 'cdk8s-zones.dev/quorum': 'majority' } },
    spec: {
      replicas: 3,
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { ...POD, ...spread('db') } },
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'shop' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: POD } },
  },
];

function chromium(args: string[]): string {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'check-html-chromium-'));
  try {
    return execFileSync('chromium', ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`, ...args],
      { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err: any) {
    const lastLines = String(err.stderr ?? err.message).trim().split('\n').slice(-15).join('\n');
    const why = err.code === 'ENOENT'
      ? 'chromium is not installed: run `npm run test:integration:setup` (setup.d/80-chromium.sh installs the Debian package chromium)'
      : `chromium ${args.join(' ')} failed (${err.signal ?? `exit ${err.status}`}): ${lastLines}`;
    throw new Error(why);
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/** The RGB pixels of an 8-bit, non-interlaced PNG (what Chromium writes), with its filters undone. */
function decodePng(file: string): {
  width: number;
  height: number;
  pixel: (x: number, y: number) => [number, number, number];
} {
  const buf = fs.readFileSync(file);
  expect(buf.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  let width = 0; let height = 0; let colorType = 0; let depth = 0; let interlace = 0;
  const idat: Buffer[] = [];
  for (let off = 8; off < buf.length;) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('ascii', off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      depth = data[8];
      colorType = data[9];
      interlace = data[12];
    } else if (type === 'IDAT') {
      idat.push(data);
    }
    off += 12 + len;
  }
  if (depth !== 8 || interlace !== 0 || ![2, 6].includes(colorType)) throw new Error(`unexpected PNG format: depth ${depth}, color type ${colorType}, interlace ${interlace}`);
  const bpp = colorType === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i];
      const a = i >= bpp ? out[y * stride + i - bpp] : 0;
      const b = y > 0 ? out[(y - 1) * stride + i] : 0;
      const c = i >= bpp && y > 0 ? out[(y - 1) * stride + i - bpp] : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a); const pb = Math.abs(p - b); const pc = Math.abs(p - c);
      const paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      const pred = [0, a, b, Math.floor((a + b) / 2), paeth][filter];
      if (pred === undefined) throw new Error(`PNG row ${y}: unknown filter ${filter}`);
      out[y * stride + i] = (x + pred) % 256;
    }
  }
  const pixel = (x: number, y: number): [number, number, number] => {
    const at = y * stride + x * bpp;
    return [out[at], out[at + 1], out[at + 2]];
  };
  return { width, height, pixel };
}

const report = ZoneReport.analyze(MANIFESTS, ZoneInventory.equalNodes(ZONES, 2)).data;
const htmlFile = path.join(OUT_DIR, 'zone-report.html');
const screenshot = path.join(OUT_DIR, 'zone-report.png');

beforeAll(() => {
  fs.mkdirSync(OUT_DIR, { recursive: true });
  fs.rmSync(screenshot, { force: true });
  fs.writeFileSync(htmlFile, formatHtml(report));
});

test('the report has a failing workload to show (checkout) and three that survive', () => {
  const lost = report.workloads.filter((w) => ZONES.some((z) => !w.survives[z])).map((w) => w.name);
  expect(lost).toEqual(['checkout']);
  expect(report.workloads.map((w) => w.name).sort()).toEqual(['agent', 'checkout', 'db', 'web']);
});

test('headless Chromium builds a DOM that shows every workload and marks the failing cells', () => {
  const dom = chromium(['--dump-dom', `file://${htmlFile}`]);
  const rows = [...dom.matchAll(/<tr data-workload="([^"]+)">([\s\S]*?)<\/tr>/g)].map((m) => ({ id: m[1], html: m[2] }));
  expect(rows.map((r) => r.id)).toEqual(report.workloads.map(workloadId));
  expect(rows.map((r) => r.id)).toEqual(['Deployment/shop/web', 'Deployment/shop/checkout', 'StatefulSet/shop/db', 'DaemonSet/shop/agent']);
  // each row shows its workload as text, not only in an attribute
  for (const r of rows) expect(r.html).toContain(`<td class="workload">${r.id}</td>`);
  const cells = (html: string) => [...html.matchAll(/<td class="(survives|lost)" data-zone="([^"]+)">/g)].map((m) => `${m[2]}:${m[1]}`);
  // checkout: one replica, any zone may hold it, so losing any zone may break it
  expect(cells(rows[1].html)).toEqual(['zone-a:lost', 'zone-b:lost', 'zone-c:lost']);
  expect(rows[1].html).toMatch(/<td class="verdict lost">no<\/td>/);
  for (const row of [rows[0], rows[2], rows[3]]) {
    expect(cells(row.html)).toEqual(['zone-a:survives', 'zone-b:survives', 'zone-c:survives']);
    expect(row.html).toMatch(/<td class="verdict survives">yes<\/td>/);
  }
  expect(dom).toContain('Zone check: 3 zones, 4 workloads');
});

test('the screenshot shows the red (lost) and green (survives) cells, and is kept under .cache/', () => {
  chromium([`--screenshot=${screenshot}`, '--window-size=1280,900', '--hide-scrollbars', `file://${htmlFile}`]);
  if (!fs.existsSync(screenshot)) throw new Error(`chromium wrote no screenshot at ${screenshot}`);
  const png = decodePng(screenshot);
  expect([png.width, png.height]).toEqual([1280, 900]);
  let red = 0; let green = 0;
  const near = (p: number[], q: number[]) => p.every((v, i) => Math.abs(v - q[i]) <= 6);
  for (let y = 0; y < png.height; y += 2) {
    for (let x = 0; x < png.width; x += 2) {
      const p = png.pixel(x, y);
      if (near(p, [0xf4, 0xb6, 0xb6])) red++;
      if (near(p, [0xc8, 0xef, 0xc8])) green++;
    }
  }
  // eslint-disable-next-line no-console
  console.log(`screenshot: ${screenshot} (${png.width}x${png.height}; sampled ${red} red and ${green} green pixels)`);
  // at least the three lost cells of checkout and its verdict; nine cells and three verdicts survive
  expect(red).toBeGreaterThan(500);
  expect(green).toBeGreaterThan(red);
});
