/**
 * The parts of the kit that need Node's own modules (`node:https`, `node:fs`): a `fetch` trusting a
 * development certificate, and the file `channel-kit listen` keeps its position in.
 */
export { fetchTrusting, type TrustingFetch } from './trusting-fetch.ts';
export { FileCursorStore } from './cursor-file.ts';
