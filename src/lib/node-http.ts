/**
 * node:http without Node's bundled undici. `import http from 'node:http'` builds an ES module
 * namespace from every export of node:http, and reading them runs its lazy `WebSocket`,
 * `MessageEvent` and `CloseEvent` getters, which load undici (0.75 MB of source, a few MiB of
 * resident memory) at start in a process that may never use them. The CommonJS object does not.
 * `import type` stays free for the types.
 */
export const nodeHttp = process.getBuiltinModule('node:http');
