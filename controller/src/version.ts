/**
 * The controller's version: the version of the cdk8s-zones package it is built from (its package.json, the
 * one home of the version; the release sets it before it builds the package and the image). The JSON is
 * compiled in: the image's bundle carries it, and has no package.json beside it.
 */
import { version } from '../../package.json';

export const CONTROLLER_VERSION: string = version;
