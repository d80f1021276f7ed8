/**
 * `cdk8s-zones shift start|status|cancel`: writes, reads and deletes ZoneShifts (the controller does the rest:
 * docs/controller.md, "The zonal shift"). `start` and `cancel` wait for the controller's answer, so their exit
 * code says whether the zone is out of service, or back.
 */
import { describeAutoshift, listAutoshifts } from './autoshift-status';
import { LiveIo, withApi } from './live-io';
import { failSafePreview } from './shift-preview';
import { zonesOf } from '../check/cluster-nodes';
import { ExitCode } from '../contract/exit-codes';
import { LostZoneRecoveryStatus } from '../contract/lost-zone';
import { ROLLOUT_API_VERSION } from '../contract/rollout';
import { ZoneAnnotation } from '../contract/zone-annotation';
import { AUTOSHIFT_POLICY_LABEL, SHIFT_CAUSE_LABEL } from '../contract/zone-autoshift';
import {
  MAX_SHIFT_SECONDS, ShiftChange, ZONE_SHIFT_KIND, ZONE_SHIFTS_PATH, zoneShiftProblem, ZoneShiftSpec, ZoneShiftStatus,
} from '../contract/zone-shift';
import { isStatus, KubeObject, KubeRequestApi, listAll } from '../kubernetes/kube-api';
import { zoneSlug } from '../kubernetes/zone-slug';
import { FlagSpec, flagsHelp, HELP_FLAG, parseCommandLine, usageText } from '../shared/command-line';
import { UsageError } from '../shared/errors';

/** How long `start` waits for the controller to take a shift up, and `cancel` for it to undo one, unless told. */
export const DEFAULT_SHIFT_TIMEOUT = '60s';
const POLL_MS = 250;

const KUBECONFIG: FlagSpec = {
  name: 'kubeconfig',
  type: 'text',
  value: 'FILE',
  defaultText: 'as kubectl chooses',
  meaning: 'the cluster, through the current context of FILE',
};
const TIMEOUT: FlagSpec = {
  name: 'timeout',
  type: 'duration',
  default: DEFAULT_SHIFT_TIMEOUT,
  meaning: 'how long to wait for the controller\'s answer',
};

/** The flags of each subcommand: the parser's and the help's one table. */
export const SHIFT_FLAGS: { readonly [sub in 'start' | 'status' | 'cancel']: readonly FlagSpec[] } = {
  start: [
    { name: 'zone', type: 'text', value: 'ZONE', required: true, meaning: 'the zone to take out of service' },
    {
      name: 'expires-in',
      type: 'duration',
      required: true,
      meaning: `when the shift ends by itself, at most ${MAX_SHIFT_SECONDS / 3600}h (a shift nobody ends must end)`,
    },
    {
      name: 'namespaces',
      type: 'list',
      value: 'NS,...',
      defaultText: 'cluster-wide',
      meaning: 'only the workloads of these namespaces',
    },
    { name: 'reason', type: 'text', value: 'TEXT', defaultText: 'none', meaning: 'why, for whoever reads the shift' },
    {
      name: 'lost',
      type: 'switch',
      meaning: 'the zone is lost for good: once none of its nodes answers, the opted-in StatefulSets\' pods there come back ' +
        'elsewhere (docs/runbooks/zone-lost.md)',
    },
    { name: 'name', type: 'text', value: 'NAME', defaultText: '<zone>-<UTC time>', meaning: 'the ZoneShift\'s name' },
    KUBECONFIG, TIMEOUT, HELP_FLAG,
  ],
  status: [
    { name: 'zone', type: 'text', value: 'ZONE', defaultText: 'every zone', meaning: 'only the shifts of this zone' },
    { name: 'format', type: 'choice', choices: ['text', 'json'], default: 'text', meaning: 'the listing\'s' },
    KUBECONFIG, HELP_FLAG,
  ],
  cancel: [
    {
      name: 'zone',
      type: 'text',
      value: 'ZONE',
      required: 'unless shifts are named',
      meaning: 'every shift of this zone',
    },
    KUBECONFIG, TIMEOUT, HELP_FLAG,
  ],
};

/** The usage of each subcommand, from its table. */
export const SHIFT_USAGE = usageText([
  { command: 'cdk8s-zones shift start', flags: SHIFT_FLAGS.start },
  { command: 'cdk8s-zones shift status', flags: SHIFT_FLAGS.status, operands: '[NAME ...]' },
  { command: 'cdk8s-zones shift cancel', flags: SHIFT_FLAGS.cancel, orOperands: { flag: 'zone', operands: 'NAME ...' } },
]);

/** The help's flag sections, one per subcommand. */
export function shiftFlagsHelp(): string[] {
  return flagsHelp(Object.entries(SHIFT_FLAGS).map(([sub, flags]) => ({ title: `shift ${sub}`, flags })));
}

/** A ZoneShift as read back. */
interface ShiftObject extends KubeObject {
  readonly metadata: {
    readonly name: string;
    readonly creationTimestamp?: string;
    readonly deletionTimestamp?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly spec: ZoneShiftSpec;
  readonly status?: ZoneShiftStatus;
}

/**
 * Runs `shift <sub> ...` (argv after `shift`); exit 0: done, 1: the controller refused or did not answer in time,
 * 2: bad input or the API unreachable (docs/cli.md).
 */
export async function shiftCommand(argv: readonly string[], io: LiveIo): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'start': return startShift(rest, io);
    case 'status': return shiftStatus(rest, io);
    case 'cancel': return cancelShifts(rest, io);
    default: throw new UsageError(`shift ${sub === undefined ? 'needs' : `${JSON.stringify(sub)} is not`} a subcommand: start, status or cancel`);
  }
}

async function startShift(argv: readonly string[], io: LiveIo): Promise<number> {
  const f = parseCommandLine(argv, SHIFT_FLAGS.start);
  if (f.positional.length > 0) throw new UsageError(`shift start takes no argument (${JSON.stringify(f.positional[0])}): name the zone with --zone`);
  const zone = f.text('zone');
  if (zone === undefined) throw new UsageError('shift start needs --zone: the zone to take out of service');
  const expiresInMs = f.ms('expires-in');
  if (expiresInMs === undefined) {
    throw new UsageError(`shift start needs --expires-in (at most ${MAX_SHIFT_SECONDS / 3600}h): a shift nobody ends must end by itself`);
  }
  if (expiresInMs > MAX_SHIFT_SECONDS * 1000) {
    throw new UsageError(`--expires-in=${f.written('expires-in')} must be at most ${MAX_SHIFT_SECONDS / 3600}h`);
  }
  const now = io.now();
  const namespaces = f.list('namespaces');
  const reason = f.text('reason');
  const spec: ZoneShiftSpec = {
    zone,
    expiresAt: new Date(now + expiresInMs).toISOString(),
    ...(namespaces === undefined ? {} : { namespaces: [...namespaces] }),
    ...(reason === undefined ? {} : { reason }),
    ...(f.on('lost') ? { lost: true } : {}),
  };
  const problem = zoneShiftProblem(spec, now);
  // the spec's rules, said of the flags that wrote it (the expiry is in bounds already)
  if (problem !== undefined) throw new UsageError(problem.replace(/^spec\./, '--'));
  const name = f.text('name') ?? defaultShiftName(zone, now);
  return withApi(io, f.text('kubeconfig'), (api) => createAndWait(api, io, name, spec, f.ms('timeout')!));
}

/** Creates the shift and waits for the controller's answer: Active with what it changed (0), or Invalid (1). */
async function createAndWait(
  api: KubeRequestApi, io: LiveIo, name: string, spec: ZoneShiftSpec, waitMs: number,
): Promise<number> {
  const nodes = await listAll(api, '/api/v1/nodes');
  const zones = zonesOf(nodes);
  if (!zones.includes(spec.zone) && !spec.zone.includes(ZoneAnnotation.VALUE_SEPARATOR)) {
    throw new UsageError(`--zone ${JSON.stringify(spec.zone)}: no node of the cluster is in that zone (its zones: ${zones.join(', ') || 'none'})`);
  }
  const start = io.now();
  const kept = await failSafePreview(api, spec, nodes);
  const created = { apiVersion: ROLLOUT_API_VERSION, kind: ZONE_SHIFT_KIND, metadata: { name }, spec };
  await api.create(ZONE_SHIFTS_PATH, created);
  io.stdout(`zoneshift/${name} created: zone ${spec.zone} out of service until ${spec.expiresAt}${spec.namespaces ? ` for ${spec.namespaces.join(', ')}` : ''}\n`);
  for (const [pod, why] of kept) io.stdout(`  pod/${pod} stays in service (the fail-safe): it is one of ${why}\n`);
  const deadline = start + waitMs;
  for (;;) {
    const shift: ShiftObject = await api.get(`${ZONE_SHIFTS_PATH}/${name}`);
    const phase = shift.status?.phase;
    if (phase === 'Active' && shift.status!.changed !== undefined) {
      io.stdout(describeShift(shift));
      return ExitCode.OK;
    }
    if (phase === 'Invalid' || phase === 'Ended') {
      io.stdout(describeShift(shift));
      return ExitCode.FAILED;
    }
    if (io.now() >= deadline) {
      io.stdout(`zoneshift/${name}: no controller took it up within ${Math.floor(waitMs / 1000)} s: does a ZoneController run with zoneShift? ` +
        `The shift stays until ${spec.expiresAt}; cancel it with: cdk8s-zones shift cancel ${name}\n`);
      return ExitCode.FAILED;
    }
    await io.sleep(POLL_MS);
  }
}

async function shiftStatus(argv: readonly string[], io: LiveIo): Promise<number> {
  const f = parseCommandLine(argv, SHIFT_FLAGS.status);
  const format = f.text('format');
  const zone = f.text('zone');
  const [shifts, autoshifts] = await withApi(io, f.text('kubeconfig'),
    (api) => Promise.all([selectShifts(api, f.positional, zone, true), listAutoshifts(api)]));
  if (format === 'json') {
    const listed = shifts.map((s) => ({
      name: s.metadata.name, labels: s.metadata.labels ?? {}, spec: s.spec, status: s.status ?? null,
    }));
    const policies = autoshifts.map((p) => ({ name: p.metadata.name, spec: p.spec, status: p.status ?? null }));
    io.stdout(JSON.stringify({ shifts: listed, autoshifts: policies }, undefined, 2) + '\n');
  } else {
    const listed = shifts.length === 0 ? 'no zone shift\n' : shifts.map(describeShift).join('');
    io.stdout(listed + autoshifts.map(describeAutoshift).join(''));
  }
  return ExitCode.OK;
}

async function cancelShifts(argv: readonly string[], io: LiveIo): Promise<number> {
  const f = parseCommandLine(argv, SHIFT_FLAGS.cancel);
  const zone = f.text('zone');
  if (f.positional.length === 0 && zone === undefined) {
    throw new UsageError('shift cancel needs the shifts: their names, or --zone');
  }
  return withApi(io, f.text('kubeconfig'), async (api) => {
    const shifts = await selectShifts(api, f.positional, zone, false);
    if (shifts.length === 0) {
      io.stdout(`no zone shift of zone ${zone}\n`);
      return ExitCode.OK;
    }
    return deleteAndWait(api, io, shifts.map((s) => s.metadata.name), f.ms('timeout')!);
  });
}

/** Deletes the shifts and waits until the controller has undone them (their finalizer gone, so are they). */
async function deleteAndWait(
  api: KubeRequestApi, io: LiveIo, names: readonly string[], waitMs: number,
): Promise<number> {
  const start = io.now();
  const deadline = start + waitMs;
  for (const name of names) await api.delete(`${ZONE_SHIFTS_PATH}/${name}`);
  let left = [...names];
  for (;;) {
    const still: string[] = [];
    for (const name of left) if (await getShift(api, name) !== undefined) still.push(name);
    for (const name of left.filter((n) => !still.includes(n))) io.stdout(`zoneshift/${name} cancelled: what it changed is undone\n`);
    left = still;
    if (left.length === 0) return ExitCode.OK;
    if (io.now() >= deadline) {
      io.stdout(`${left.map((n) => `zoneshift/${n}`).join(', ')}: deleted, but the controller has not undone ${left.length > 1 ? 'them' : 'it'} within ` +
        `${Math.floor(waitMs / 1000)} s (its finalizer holds ${left.length > 1 ? 'them' : 'it'} until then): see cdk8s-zones shift status\n`);
      return ExitCode.FAILED;
    }
    await io.sleep(POLL_MS);
  }
}

/** The shifts named (each must exist) or of `zone` (or all, when neither is given and `allWhenNone`). */
async function selectShifts(
  api: KubeRequestApi, names: readonly string[], zone: string | undefined, allWhenNone: boolean,
): Promise<ShiftObject[]> {
  if (names.length > 0 && zone !== undefined) throw new UsageError('name the shifts or give --zone, not both');
  if (names.length > 0) {
    const found: ShiftObject[] = [];
    for (const name of names) {
      const shift = await getShift(api, name);
      if (shift === undefined) throw new UsageError(`zoneshift/${name} does not exist (cdk8s-zones shift status lists them)`);
      found.push(shift);
    }
    return found;
  }
  const all = await listAll<ShiftObject>(api, ZONE_SHIFTS_PATH);
  return zone === undefined ? (allWhenNone ? all : []) : all.filter((s) => s.spec?.zone === zone);
}

async function getShift(api: KubeRequestApi, name: string): Promise<ShiftObject | undefined> {
  try {
    return await api.get<ShiftObject>(`${ZONE_SHIFTS_PATH}/${name}`);
  } catch (e) {
    if (isStatus(e, 404)) return undefined;
    throw e;
  }
}

/** `<zone slug>-<UTC time>`: one name per start, sorted by time. */
export function defaultShiftName(zone: string, nowMs: number): string {
  const time = new Date(nowMs).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').replace('T', '-');
  return `${zoneSlug(zone)}-${time}`;
}

/** A shift in a few lines: name, zone, phase, expiry, scope, message, and what it changed. */
export function describeShift(shift: ShiftObject): string {
  const s = shift.spec;
  const status = shift.status;
  const scope = s.namespaces && s.namespaces.length > 0 ? `namespaces ${s.namespaces.join(', ')}` : 'cluster-wide';
  const phase = shift.metadata.deletionTimestamp ? 'Cancelling' : status?.phase ?? 'Pending (no controller has answered)';
  const policy = shift.metadata.labels?.[AUTOSHIFT_POLICY_LABEL];
  const by = policy ? `, started by zoneautoshift/${policy} (${shift.metadata.labels?.[SHIFT_CAUSE_LABEL]})` : '';
  const lines = [`zoneshift/${shift.metadata.name}: zone ${s.zone}, ${scope}${by}, ${phase}, expires ${s.expiresAt}${s.reason ? `; reason: ${s.reason}` : ''}`];
  if (status?.message) lines.push(`  ${status.message}`);
  const changed: readonly ShiftChange[] = status?.changed ?? [];
  for (const c of changed) lines.push(`  ${c.kind.toLowerCase()}/${c.namespace ? `${c.namespace}/` : ''}${c.name}: ${c.change}`);
  if (s.lost) lines.push(...recoveryLines(status?.recovery));
  return lines.join('\n') + '\n';
}

/** What the lost-zone recovery did, as `shift status` prints it under a lost zone's shift. */
function recoveryLines(recovery: LostZoneRecoveryStatus | undefined): string[] {
  if (!recovery) return ['  lost zone: no controller running lostZoneRecovery has answered'];
  return [
    `  lost zone, recovery ${recovery.phase}: ${recovery.message}`,
    ...recovery.recovered.map((r) => `  pod/${r.namespace}/${r.pod} of statefulset/${r.statefulSet} brought back at ${r.at}` +
      (r.claims.length > 0 ? ` (claims deleted: ${r.claims.join(', ')})` : '')),
    ...recovery.held.map((h) => `  held: ${h}`),
  ];
}
