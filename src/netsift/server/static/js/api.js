// The netsift HTTP API from the browser: the key, JSON calls, and server-sent events over fetch
// (EventSource cannot send the Authorization header).

const KEY_NAME = "netsift-key"; // sessionStorage: the key lives as long as this tab

/** A failure in the API's own shape: {code, message, retryable, details}. */
export class ApiError extends Error {
  constructor(status, { code, message, retryable = false, details = {} }) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryable = retryable;
    this.details = details;
  }
}

const authListeners = new Set();
/** Called with the ApiError whenever the server answers 401 (no key, or an unknown one). */
export function onAuthRequired(listener) {
  authListeners.add(listener);
}

export function apiKey() {
  return sessionStorage.getItem(KEY_NAME) || "";
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY_NAME, key);
  else sessionStorage.removeItem(KEY_NAME);
}

function headers(accept, hasBody) {
  const result = { Accept: accept };
  if (hasBody) result["Content-Type"] = "application/json";
  const key = apiKey();
  if (key) result.Authorization = `Bearer ${key}`;
  return result;
}

async function send(method, path, body, accept, signal) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: headers(accept, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ApiError(0, { code: "network", message: `the server could not be reached (${err.message})`, retryable: true });
  }
  if (!response.ok) throw await failure(response);
  return response;
}

async function failure(response) {
  let error;
  try {
    error = new ApiError(response.status, (await response.json()).error);
  } catch {
    error = new ApiError(response.status, { code: "http_" + response.status, message: `HTTP ${response.status}` });
  }
  if (response.status === 401) for (const listener of authListeners) listener(error);
  return error;
}

/** A JSON call: the parsed answer, or an ApiError thrown. */
export async function api(method, path, body, { signal } = {}) {
  const response = await send(method, path, body, "application/json", signal);
  return response.json();
}

/** A binary answer (an image relayed by /v1/image) as a Blob, or an ApiError thrown. */
export async function blob(path, { signal } = {}) {
  const response = await send("GET", path, undefined, "image/*", signal);
  return response.blob();
}

export const get = (path, options) => api("GET", path, undefined, options);
export const post = (path, body, options) => api("POST", path, body ?? {}, options);

/** Server-sent events: onEvent(type, payload, id) for each, until the stream ends or `signal`
 *  aborts. An `error` event carrying the API's error shape is thrown as an ApiError. */
export async function stream(method, path, body, onEvent, { signal } = {}) {
  const response = await send(method, path, body, "text/event-stream", signal);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replaceAll("\r\n", "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        dispatch(block, onEvent);
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function dispatch(block, onEvent) {
  let type = "message";
  let id = null;
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue; // a keep-alive comment
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") type = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  if (!data.length) return;
  const payload = JSON.parse(data.join("\n"));
  if (type === "error" && payload.data && payload.data.error) throw new ApiError(200, payload.data.error);
  onEvent(type, payload, id);
}
