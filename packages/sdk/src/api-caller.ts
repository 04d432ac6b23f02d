import type { InputArgs, JsonOperationId, OperationId, OperationInput, OperationResponse } from './operation-types.ts';

/** What the documents and chat helpers need of the client (the client implements it). */
export interface ApiCaller {
  /** Calls one operation by its operationId and answers its typed JSON. */
  call<K extends JsonOperationId>(op: K, ...args: InputArgs<K>): Promise<OperationResponse<K>>;
  /** Sends one operation and answers the raw Response. */
  send<K extends OperationId>(op: K, input: OperationInput<K>): Promise<Response>;
  /** The URL of a path on this service. */
  url(path: string, query?: Record<string, unknown>): string;
}
