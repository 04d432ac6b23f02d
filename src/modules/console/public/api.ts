// The console's client: the public API with the signed-in credential, typed by the SDK's types
// generated from the OpenAPI document (type-only imports: nothing of the SDK ships to the browser).
import type { ErrorBody, Operations } from '../../../../packages/sdk/src/generated/api-types.ts';

export type Op = keyof Operations;
export type Answer<K extends Op> = Operations[K]['response'];

/** The credential kept for this tab (sessionStorage): an operator's API key or a user's tokens. */
export type Session = { apiKey: string } | { tenant: string; access: string; refresh: string; csrf: string };

const KEY = 'docuvault.session';

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(KEY);
  return raw ? (JSON.parse(raw) as Session) : null;
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}

/** An error answer of the API, with the contract's body. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  constructor(status: number, body: ErrorBody) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}

/** Headers of the current credential (the CSRF token on changes, as the contract asks). */
export function authHeaders(method: string): Record<string, string> {
  const s = loadSession();
  if (!s) return {};
  if ('apiKey' in s) return { 'x-api-key': s.apiKey };
  return {
    authorization: `Bearer ${s.access}`,
    'x-tenant-subdomain': s.tenant,
    ...(method === 'GET' ? {} : { 'x-csrf-token': s.csrf }),
  };
}

/** Signs a user in and keeps their tokens for this tab; throws ApiError when refused. */
export async function login(tenant: string, email: string, password: string): Promise<void> {
  const res = await fetch('/api/v1/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-subdomain': tenant },
    body: JSON.stringify({ email, password }),
  });
  const body = await res.json();
  if (!res.ok) throw new ApiError(res.status, body);
  saveSession({ tenant, access: body.access_token, refresh: body.refresh_token, csrf: body.csrf_token });
}

/** Trades the refresh token for new tokens; false when there is nothing to refresh or it was refused. */
export async function refresh(): Promise<boolean> {
  const s = loadSession();
  if (!s || 'apiKey' in s) return false;
  const res = await fetch('/api/v1/auth/refresh', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token: s.refresh }),
  });
  if (!res.ok) return false;
  const t = (await res.json()) as Answer<'refreshAuth'>;
  saveSession({ tenant: s.tenant, access: t.access_token, refresh: t.refresh_token, csrf: t.csrf_token });
  return true;
}

/** Sends a request; a 401 with user tokens refreshes once and retries. Answers the Response or throws ApiError. */
export async function send(
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string> } = {},
  retried = false,
): Promise<Response> {
  const json = init.body !== undefined && !(init.body instanceof FormData);
  const res = await fetch(path, {
    method,
    headers: {
      accept: 'application/json',
      ...authHeaders(method),
      ...(json ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: json ? JSON.stringify(init.body) : (init.body as FormData) } : {}),
  });
  if (res.status === 401 && !retried && (await refresh())) return send(method, path, init, true);
  if (!res.ok)
    throw new ApiError(
      res.status,
      (await res
        .json()
        .catch(() => ({ error: 'http_error', code: 'HTTP_ERROR', message: `HTTP ${res.status}` }))) as ErrorBody,
    );
  return res;
}

/** A JSON call typed by the operation it names. */
export async function call<K extends Op>(_op: K, method: string, path: string, body?: unknown): Promise<Answer<K>> {
  const res = await send(method, path, body === undefined ? {} : { body });
  return (await res.json()) as Answer<K>;
}

/** Streams a chat answer (server-sent events), calling onDelta per piece; answers the stored message. */
export async function askStreaming(
  sessionId: string,
  message: string,
  onDelta: (text: string) => void,
): Promise<Answer<'askChatSession'>> {
  const res = await send('POST', `/api/v1/chat/sessions/${encodeURIComponent(sessionId)}/ask`, {
    body: { message },
    headers: { accept: 'text/event-stream' },
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the answer stream ended early');
    buffer += decoder.decode(value, { stream: true });
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null');
      if (event === 'delta') onDelta(data.content);
      if (event === 'done') return data;
      if (event === 'error') throw new ApiError(500, data);
      cut = buffer.indexOf('\n\n');
    }
  }
}

/** A file of a batch and where it goes. */
export interface BatchFile {
  file: File;
  folderId: string | null;
}

/** What the service said about one file of a batch: stored (with its id) or refused (code and message). */
export type BatchOutcome = { file: File; id: string } | { file: File; code: string; message: string };

/**
 * Sends up to 10 files of one folder as one batch upload (XMLHttpRequest: fetch reports no upload
 * progress in browsers). The request's progress is shared out over its files by their place in the
 * multipart body, so each file has its own bar. Answers one outcome per file, from `documents` and
 * `rejected` (or the error's `details.rejected` when all were refused); throws on any other failure.
 */
export async function uploadBatch(
  files: File[],
  folderId: string | null,
  onProgress: (index: number, share: number) => void,
  retried = false,
): Promise<BatchOutcome[]> {
  const xhr = await new Promise<XMLHttpRequest>((resolve, reject) => {
    const form = new FormData();
    if (folderId) form.append('folder_id', folderId);
    for (const file of files) form.append('files[]', file, file.name);
    const request = new XMLHttpRequest();
    request.open('POST', '/api/v1/documents/upload-batch');
    for (const [name, value] of Object.entries(authHeaders('POST'))) request.setRequestHeader(name, value);
    request.setRequestHeader('idempotency-key', crypto.randomUUID());
    request.upload.onprogress = (e) => shareProgress(files, e.loaded / (e.total || 1), onProgress);
    request.onload = () => resolve(request);
    request.onerror = () => reject(new Error('network error'));
    request.send(form);
  });
  if (xhr.status === 401 && !retried && (await refresh())) return uploadBatch(files, folderId, onProgress, true);
  const body = JSON.parse(xhr.responseText || '{}');
  const rejected: { filename: string; code: string; message: string }[] =
    xhr.status < 300 ? body.rejected : (body.details?.rejected ?? []);
  if (xhr.status >= 300 && rejected.length === 0) throw new ApiError(xhr.status, body as ErrorBody);
  const stored: { id: string; filename: string }[] = xhr.status < 300 ? body.documents : [];
  return files.map((file) => {
    const doc = take(stored, file.name);
    if (doc) return { file, id: doc.id };
    const refusal = take(rejected, file.name);
    return {
      file,
      code: refusal?.code ?? 'NOT_STORED',
      message: refusal?.message ?? 'The service did not report this file',
    };
  });
}

function shareProgress(files: File[], done: number, onProgress: (index: number, share: number) => void): void {
  const total = files.reduce((sum, f) => sum + f.size, 0) || 1;
  let start = 0;
  files.forEach((file, i) => {
    onProgress(i, Math.min(1, Math.max(0, (done * total - start) / (file.size || 1))));
    start += file.size;
  });
}

/** Removes and answers the first entry for a file name (a batch may hold two files of one name). */
function take<T extends { filename: string }>(list: T[], name: string): T | undefined {
  const at = list.findIndex((x) => x.filename === name);
  return at < 0 ? undefined : list.splice(at, 1)[0];
}

/** An object URL for a protected file (thumbnail, original): fetched with the credential, as <img> cannot send it. */
export async function blobUrl(path: string): Promise<string> {
  const res = await send('GET', path, { headers: { accept: '*/*' } });
  return URL.createObjectURL(await res.blob());
}
