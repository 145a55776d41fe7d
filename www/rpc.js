// Promise-based calls into the worker that holds the wasm: call("op", ...args) sends
// {id, op, args} and settles when {id, ok, value | error} comes back.

export function connect(worker) {
  let next = 1;
  const pending = new Map();

  worker.addEventListener("message", ({ data }) => {
    const waiting = pending.get(data.id);
    if (!waiting) return;
    pending.delete(data.id);
    if (data.ok) waiting.resolve(data.value);
    else waiting.reject(data.error);
  });

  // A worker that fails to start (script or wasm missing) would otherwise leave every call hanging.
  worker.addEventListener("error", (event) => {
    const error = { kind: "worker", message: `The analysis engine could not start: ${event.message || "the worker failed to load"}` };
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  });

  return function call(op, ...args) {
    const id = next++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, op, args });
    });
  };
}
