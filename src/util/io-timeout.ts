// Deadlines that let an answer already received win. After a stall (a long synchronous job, a
// process starved of CPU on a busy machine), Node runs every due timer before it polls the sockets
// again, so a response that arrived during the stall would lose to its own deadline and a request
// that was answered in time would fail. Once due, these timers wait for that poll (an immediate runs
// after it) and fire only if they were not cleared meanwhile.

export interface IoTimeout {
  /** Cancels the deadline; safe to call more than once, and after it fired. */
  clear(): void;
}

/** Calls `fn` once `ms` have passed and the I/O that arrived by then has been processed. */
export function setIoTimeout(fn: () => void, ms: number): IoTimeout {
  let immediate: NodeJS.Immediate | undefined;
  let cleared = false;
  const timer = setTimeout(() => {
    immediate = setImmediate(() => {
      if (!cleared) fn();
    });
    immediate.unref();
  }, ms);
  timer.unref();
  return {
    clear() {
      cleared = true;
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    },
  };
}
