import { Command } from '../cli';
import { redis } from './redis';
import { run } from './run';
import { waitForZone } from './wait-for-zone';

/** Every command of the CLI, in the order the usage text lists them. */
export const COMMANDS: readonly Command[] = [run, waitForZone, redis];
