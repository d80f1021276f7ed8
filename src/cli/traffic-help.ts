/**
 * `cdk8s-zones traffic`'s flags: the check's (nodes, live cluster, report) and the traffic's own (clients, costs),
 * as one table, and its help.
 */
import { LIVE_FLAGS, NODE_FLAGS, OTHER_FLAGS, PROGRAM, REPORT_FLAGS } from './check-help';
import { docsUrl } from '../contract/docs';
import { exitCodesHelp } from '../contract/exit-codes';
import { FlagGroup, FlagSpec, flagsHelp, usageText } from '../shared/command-line';

/** The most zones the traffic report searches layouts over. */
export const MAX_TRAFFIC_ZONES = 8;

const TRAFFIC_OWN_FLAGS: FlagGroup = {
  title: 'Clients and costs',
  flags: [
    {
      name: 'clients',
      type: 'text',
      value: '[NS/SERVICE=]NAMESPACE/KIND/NAME',
      repeatable: true,
      meaning: 'the clients run where this workload of the input may be placed: of the Service named before =, or of '
        + 'every Service not named in another --clients (namespace - for none); repeatable',
      defaultText: 'spread over the zones as the nodes are',
    },
    {
      name: 'gb-per-month',
      type: 'text',
      value: '[NS/SERVICE=]GB',
      repeatable: true,
      meaning: 'the GB a month a Service carries (requests and responses): of the Service named before =, or of every '
        + 'Service not named in another; with --price-per-gb, gives the monthly cost; repeatable',
      defaultText: 'none: no costs',
    },
    {
      name: 'price-per-gb',
      type: 'text',
      value: 'PRICE',
      meaning: 'what one GB costs between zones in each direction (0.01 on AWS and Google Cloud); '
        + 'a byte that crosses is billed twice',
      defaultText: 'none: no costs',
    },
  ],
};

/** The flags of `traffic`, in the groups its help shows. */
export const TRAFFIC_FLAG_GROUPS: readonly FlagGroup[] = [
  NODE_FLAGS,
  LIVE_FLAGS,
  TRAFFIC_OWN_FLAGS,
  REPORT_FLAGS,
  OTHER_FLAGS,
];

/** Every flag of `traffic`. */
export const TRAFFIC_FLAGS: readonly FlagSpec[] = TRAFFIC_FLAG_GROUPS.flatMap((g) => g.flags);

/** Its usage, printed under bad input. */
export const TRAFFIC_USAGE = `${usageText([{ command: `${PROGRAM} traffic`, flags: TRAFFIC_FLAGS, operands: 'FILE|DIR|- ...' }])}\n` +
  `Run '${PROGRAM} traffic --help' for what each option does and its default.`;

/** Its full help. */
export function trafficHelp(): string {
  return [
    TRAFFIC_USAGE,
    '',
    'Predicts, per Service, where its endpoints are (the check\'s placement), the rule that routes its requests',
    '(trafficDistribution, topology-mode Auto, or none), the share of requests that cross zones and the load on the',
    'busiest endpoint, at worst over every layout the manifests allow (and now, with --live).',
    ...flagsHelp(TRAFFIC_FLAG_GROUPS),
    '',
    `At most ${MAX_TRAFFIC_ZONES} zones. Exit 0: no warning; 1: some Service has a warning or an error.`,
    ...exitCodesHelp(),
    '',
    `Guide: ${docsUrl('traffic.md')}`,
    '',
  ].join('\n');
}
