/** The examples (examples/<name>/main.ts), each built into a fresh app and synthesized. */
import * as fs from 'fs';
import * as path from 'path';
import { App, Testing } from 'cdk8s';
import { ExampleVariant } from './example-variants';

const EXAMPLES = path.resolve(__dirname, '..', 'examples');

/** The examples' names, sorted. */
export const EXAMPLE_NAMES = fs.readdirSync(EXAMPLES).filter((n) => fs.existsSync(path.join(EXAMPLES, n, 'main.ts'))).sort();

/** Every object of example `name` built in `variant` (validation runs, as in `cdk8s synth`). */
export function synthesizeExample(name: string, variant: ExampleVariant): any[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { build } = require(path.join(EXAMPLES, name, 'main.ts'));
  const app: App = Testing.app();
  build(app, variant.zones);
  return app.charts.flatMap((chart) => Testing.synth(chart));
}
