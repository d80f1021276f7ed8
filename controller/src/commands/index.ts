import { Command } from '../cli';
import { waitForZone } from './wait-for-zone';

/** Every command of the CLI, in the order the usage text lists them. */
export const COMMANDS: readonly Command[] = [waitForZone];
