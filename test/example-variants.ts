/**
 * The zones the examples are built with: the standard ones (what each example defaults to), and hostile ones,
 * label values that are not DNS names (upper case, '_', '.', 63 characters). Every name and label the library
 * derives from them must stay valid (test/examples.test.ts, and the Kubernetes tier applies both). Construct ids
 * of every shape are test/names.property.test.ts's.
 */
export interface ExampleVariant {
  /** The zones of the example's topology, in order. */
  readonly zones: string[];
}

export const STANDARD_VARIANT: ExampleVariant = { zones: ['zone-a', 'zone-b', 'zone-c'] };

export const HOSTILE_VARIANT: ExampleVariant = {
  zones: ['Zone_A', 'ZONE.b', `zone-c-${'with-a-label-value-far-longer-than-any-object-name-part'}`.slice(0, 63)],
};
