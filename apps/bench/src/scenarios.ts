/** The bench's scenarios, one file each, and the figure they all report. */
export type { Figure } from './figure';
export { CREATE_BODY, createLoad, createThroughput } from './create-scenario';
export { readLoad, readThroughput } from './read-scenario';
export { endToEnd } from './end-to-end-scenario';
export { fanOut } from './fan-out-scenario';
export { resumeCost } from './resume-scenario';
