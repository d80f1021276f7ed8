/**
 * `cdk8s-zones traffic`: reads manifests (or a live cluster) as `check` does and prints, per Service, what of its
 * requests crosses zones and which endpoint is busiest (the analysis is src/check/traffic's, the arithmetic
 * src/traffic's). Exit 0: no warning; 1: some Service has a warning or an error; 2: bad input.
 */
import { checkArgsOf, CliIo, readChecked, refuseEmpty } from './check-args';
import { sarifInputs } from './check-command';
import { MAX_TRAFFIC_ZONES, TRAFFIC_FLAGS } from './traffic-help';
import { analyzeTraffic } from '../check/traffic/analyze-traffic';
import { formatTrafficHtml, formatTrafficSarif, formatTrafficText, trafficFails } from '../check/traffic/format-traffic';
import { ObjectRef } from '../check/traffic/traffic-model';
import { TrafficClients, TrafficCosts, TrafficOptions } from '../check/traffic/traffic-options';
import { ExitCode } from '../contract/exit-codes';
import { ParsedFlags, parseCommandLine } from '../shared/command-line';
import { UsageError } from '../shared/errors';

/** Runs `traffic ...` (argv after `traffic`); bad input throws a UsageError. */
export async function trafficCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const flags = parseCommandLine(argv, TRAFFIC_FLAGS);
  const args = checkArgsOf(flags);
  const options = trafficOptionsOf(flags);
  const { input, inventory, objects } = await readChecked(args, io);
  if (inventory.zones.length > MAX_TRAFFIC_ZONES) {
    throw new UsageError(`the nodes are in ${inventory.zones.length} zones; traffic searches layouts over at most ` +
      `${MAX_TRAFFIC_ZONES}: name fewer with --zones`);
  }
  const data = analyzeTraffic(input, inventory, options);
  if (data.services.length === 0 && data.scrapes.length === 0 && !args.live) refuseEmpty(args, objects, 'Service');
  switch (args.format) {
    case 'json': io.stdout(JSON.stringify(data, undefined, 2) + '\n'); break;
    case 'sarif': io.stdout(formatTrafficSarif(data, sarifInputs(objects)) + '\n'); break;
    case 'html': io.stdout(formatTrafficHtml(data)); break;
    case 'text': io.stdout(formatTrafficText(data)); break;
  }
  return trafficFails(data) ? ExitCode.FAILED : ExitCode.OK;
}

/** `--clients`, `--gb-per-month` and `--price-per-gb`. */
function trafficOptionsOf(f: ParsedFlags): TrafficOptions {
  const clients = (f.list('clients') ?? []).map(clientsOption);
  const volumes = (f.list('gb-per-month') ?? []).map((text) => scoped('--gb-per-month', text, (v) => amount('--gb-per-month', v)));
  const price = f.text('price-per-gb');
  if ((price === undefined) !== (volumes.length === 0)) {
    throw new UsageError('--gb-per-month and --price-per-gb go together: the cost is the GB a month times the price');
  }
  const defaults = volumes.filter((v) => v.service === undefined);
  if (defaults.length > 1) throw new UsageError('--gb-per-month without a Service is given twice');
  once('--clients', clients.map((c) => c.service));
  once('--gb-per-month', volumes.map((v) => v.service));
  const costs: TrafficCosts | undefined = price === undefined ? undefined : {
    pricePerGb: amount('--price-per-gb', price),
    ...(defaults.length > 0 ? { gbPerMonth: defaults[0].value } : {}),
    perService: volumes.flatMap((v) => (v.service !== undefined ? [{ service: v.service, gbPerMonth: v.value }] : [])),
  };
  return { clients, ...(costs !== undefined ? { costs } : {}) };
}

/** `[NS/SERVICE=]NAMESPACE/KIND/NAME`. */
function clientsOption(text: string): TrafficClients {
  const { service, value } = scoped('--clients', text, (v) => v);
  const parts = value.split('/');
  if (parts.length !== 3 || parts.some((p) => p === '')) {
    throw new UsageError(`--clients ${JSON.stringify(text)}: ${JSON.stringify(value)} is not NAMESPACE/KIND/NAME (namespace - for none)`);
  }
  const [namespace, kind, name] = parts;
  return { ...(service !== undefined ? { service } : {}), workload: { ...namespaced(namespace), kind, name } };
}

/** `[NS/SERVICE=]VALUE`: the value, for one Service or (no `=`) for every other. */
function scoped<T>(flag: string, text: string, value: (v: string) => T): { service?: ObjectRef; value: T } {
  const eq = text.indexOf('=');
  if (eq < 0) return { value: value(text) };
  const ref = text.slice(0, eq).split('/');
  if (ref.length !== 2 || ref.some((p) => p === '')) {
    throw new UsageError(`${flag} ${JSON.stringify(text)}: ${JSON.stringify(text.slice(0, eq))} is not NAMESPACE/SERVICE (namespace - for none)`);
  }
  return { service: { ...namespaced(ref[0]), name: ref[1] }, value: value(text.slice(eq + 1)) };
}

function namespaced(namespace: string): { namespace?: string } {
  return namespace === '-' ? {} : { namespace };
}

/** A number of at least zero (GB, a price). */
function amount(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`${flag} ${JSON.stringify(text)}: not a number of 0 or more (e.g. 0.01, 1500)`);
  }
  return value;
}

/** A Service named twice by the same flag is refused (which would win is not obvious). */
function once(flag: string, services: readonly (ObjectRef | undefined)[]): void {
  const seen = new Set<string>();
  for (const s of services) {
    const key = s === undefined ? '(every Service)' : `${s.namespace ?? '-'}/${s.name}`;
    if (seen.has(key)) throw new UsageError(`${flag} is given twice for ${key}`);
    seen.add(key);
  }
}
