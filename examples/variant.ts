/**
 * The examples are built in two variants: the standard one (zones zone-a, zone-b, zone-c; short ids), and a
 * hostile one whose zones are label values that are not DNS names (upper case, '_', '.', 63 characters)
 * and whose constructs of this library have ids of 100 characters that object names may not hold. Every
 * name and label the library derives must stay valid in both (test/examples.test.ts, and the Kubernetes
 * tier applies both).
 */
import { ChartProps } from 'cdk8s';

export interface ExampleVariant {
  /** The zones of the example's topology, in order. */
  readonly zones: string[];
  /** The construct id to give a construct of this library that the standard variant calls `id`. */
  id(id: string): string;
}

export const STANDARD_VARIANT: ExampleVariant = { zones: ['zone-a', 'zone-b', 'zone-c'], id: (id) => id };

export const HOSTILE_VARIANT: ExampleVariant = {
  zones: ['Zone_A', 'ZONE.b', `zone-c-${'with-a-label-value-far-longer-than-any-object-name-part'}`.slice(0, 63)],
  id: (id) => `${id}_With.Dots-And_UNDERSCORES`.padEnd(100, '.x_X'),
};

/** Props of an example's chart: the usual ones, and the variant to build. */
export interface ExampleChartProps extends ChartProps {
  /** @default STANDARD_VARIANT */
  readonly variant?: ExampleVariant;
}
